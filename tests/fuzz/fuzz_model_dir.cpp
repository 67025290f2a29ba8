// The model-directory loader with one file replaced by arbitrary bytes (the first byte picks
// which: model.safetensors, config.json or source.spm): a model or a tfm::Error.
#include <sys/stat.h>

#include <cstdint>
#include <fstream>

#include "fuzz_common.hpp"
#include "tfm/base/error.hpp"
#include "tfm/model/model_dir.hpp"

namespace {
std::string read(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const std::string good = tfm_fuzz::tiny_model_dir();
    static const char* files[] = {"model.safetensors", "config.json", "source.spm"};
    static const std::string dir = tfm_fuzz::scratch_dir() + "/broken";
    static const bool made = [] {
        ::mkdir(dir.c_str(), 0755);
        for (const char* f : {"model.safetensors", "config.json", "source.spm", "target.spm"})
            std::ofstream(dir + "/" + f, std::ios::binary) << read(good + "/" + f);
        return true;
    }();
    (void)made;
    const char* file = files[data[0] % 3];
    const std::string keep = read(good + "/" + file);
    std::ofstream(dir + "/" + file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
    try {
        tfm::ModelDir md = tfm::load_model_dir(dir);
        (void)md;
    } catch (const tfm::Error&) {
    }
    std::ofstream(dir + "/" + file, std::ios::binary | std::ios::trunc) << keep;
    return 0;
}
