// The PyTorch checkpoint reader on arbitrary bytes: the zip reader (libzip), the restricted
// unpickler and the tensor views it rebuilds; every tensor that opens converts to float32 or
// says why not. Anything else is a tfm::Error.
#include <cstdint>
#include <string>

#include "tfm/base/error.hpp"
#include "tfm/io/torch_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        tfm::TorchCheckpoint ck =
            tfm::TorchCheckpoint::from_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.bin");
        for (const std::string& name : ck.names()) {
            try {
                tfm::FloatArray a = ck.get(name);
                (void)a;
            } catch (const tfm::Error&) {  // an integer tensor, say
            }
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
