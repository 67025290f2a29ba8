// The text tensor-stream reader (numbers, blank lines, "# shape:" comments) on arbitrary
// bytes: records of the size their shape says, or a tfm::Error; never a crash or a hang.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93) bytes[0] = '#';  // stay text
    tfm_fuzz::read_stream(std::move(bytes));
    return 0;
}
