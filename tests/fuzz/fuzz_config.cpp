// config.json parsing on arbitrary bytes: a valid config or a tfm::Error naming the key; a
// config that loads also writes back and reloads to the same text.
#include <cstdint>

#include "fuzz_common.hpp"
#include "tfm/model/config.hpp"
#include "tfm/base/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = tfm_fuzz::write_scratch("config.json", data, size);
    try {
        tfm::ModelConfig c = tfm::load_config(path);
        const std::string text = tfm::config_json(c);
        const std::uint8_t* t = reinterpret_cast<const std::uint8_t*>(text.data());
        const std::string again = tfm_fuzz::write_scratch("config2.json", t, text.size());
        if (tfm::config_json(tfm::load_config(again)) != text) __builtin_trap();
    } catch (const tfm::Error&) {
    }
    return 0;
}
