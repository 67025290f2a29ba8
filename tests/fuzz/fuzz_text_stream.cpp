// The text tensor-stream reader (numbers, blank lines, "# shape:" comments) on arbitrary
// bytes: records or a tfm::Error, never a crash or a hang; what it reads writes back as text.
#include <cstdint>
#include <string>

#include "tfm/error.hpp"
#include "tfm/stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.size() >= 1 && static_cast<unsigned char>(bytes[0]) == 0x93) bytes[0] = '#';  // stay text
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
