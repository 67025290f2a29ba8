// The .npy tensor-stream reader on arbitrary bytes after the magic: every record it returns
// has the size its shape says; anything else is a tfm::Error, never a crash or a hang.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes("\x93NUMPY", 6);
    bytes.append(reinterpret_cast<const char*>(data), size);
    tfm_fuzz::read_stream(std::move(bytes));
    return 0;
}
