// The .npz reader on arbitrary bytes: the zip reader (libzip, stored and deflated entries),
// each entry's .npy header against its size, and every array converting to float32 (or its
// text) or saying why not. Anything else is a tfm::Error.
#include <cstdint>
#include <string>

#include "tfm/base/error.hpp"
#include "tfm/io/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        tfm::Npz npz = tfm::Npz::from_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npz");
        for (const std::string& name : npz.names()) {
            try {
                const std::string dtype = npz.dtype(name);
                if (dtype == "I8" || dtype == "U8") (void)npz.text(name);
                else (void)npz.get(name);
            } catch (const tfm::Error&) {  // an integer array, say
            }
        }
    } catch (const tfm::Error&) {
    }
    return 0;
}
