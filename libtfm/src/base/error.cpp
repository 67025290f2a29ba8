#include "tfm/base/error.hpp"

namespace tfm {

Error record_error(std::size_t index, const std::string& what) {
    return Error("record " + std::to_string(index + 1) + ": " + what);
}

}  // namespace tfm
