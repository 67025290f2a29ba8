// The .npy tensor-stream reader on arbitrary bytes after the magic: every record it returns
// has the size its shape says; anything else is a tfm::Error, never a crash or a hang.
#include <cstdint>
#include <string>

#include "tfm/error.hpp"
#include "tfm/stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes("\x93NUMPY", 6);
    bytes.append(reinterpret_cast<const char*>(data), size);
    tfm::Input in = tfm::Input::from_string(std::move(bytes));
    tfm::TensorReader reader(in);
    try {
        while (auto rec = reader.next()) {
            std::visit([](const auto& a) {
                std::size_t n = 1;
                for (auto s : a.shape()) n *= s;
                if (n != a.size()) __builtin_trap();
            }, *rec);
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
