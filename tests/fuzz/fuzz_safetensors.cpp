// The safetensors reader on arbitrary files: open() validates the header and offsets, after
// which every tensor converts to float32; anything else is a tfm::Error.
#include <cstdint>

#include "fuzz_common.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = tfm_fuzz::write_scratch("w.safetensors", data, size);
    try {
        tfm::SafeTensors st = tfm::SafeTensors::open(path);
        for (const auto& [name, info] : st.tensors()) {
            (void)info;
            try {
                tfm::FloatArray a = st.get(name);
                (void)a;
            } catch (const tfm::Error&) {  // an integer dtype, say
            }
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
