// NLLB's and M2M100's tokenizer files, a sharded checkpoint's index and Marian's binary
// shortlist with arbitrary bytes (the first byte picks which file of a copy of the golden
// NLLB / M2M100 directories, tests/golden/make_m2m_golden.py): a model, a shortlist, or a
// tfm::Error.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>

#include "fuzz_common.hpp"
#include "tfm/base/error.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/model/model_dir.hpp"

namespace {
std::string read(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// A copy of golden directory `name` in the scratch directory.
std::string copy_of(const std::string& name, const std::vector<std::string>& files) {
    const std::string dir = tfm_fuzz::scratch_dir() + "/" + name;
    ::mkdir(dir.c_str(), 0755);
    for (const auto& f : files)
        std::ofstream(dir + "/" + f, std::ios::binary) << read(std::string(TFM_GOLDEN) + "/" + name + "/" + f);
    return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const std::string nllb = copy_of("m2m_nllb", {"config.json", "generation_config.json", "pytorch_model.bin",
                                                         "sentencepiece.bpe.model", "special_tokens_map.json",
                                                         "tokenizer_config.json"});
    static const std::string sharded =
        copy_of("m2m_m2m100_sharded", {"config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                                       "model.safetensors.index.json", "sentencepiece.bpe.model", "tokenizer_config.json",
                                       "vocab.json"});
    struct Target {
        const std::string* dir;
        const char* file;
    };
    static const Target targets[] = {{&nllb, "tokenizer_config.json"}, {&nllb, "special_tokens_map.json"},
                                     {&nllb, "tokenizer.json"},        {&nllb, "generation_config.json"},
                                     {&sharded, "model.safetensors.index.json"}, {&sharded, "tokenizer_config.json"},
                                     {&nllb, "shortlist.bin"}};
    const Target& t = targets[data[0] % 7];
    const std::string path = *t.dir + "/" + t.file;
    const std::string keep = read(path);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
    try {
        const tfm::ModelDir md = tfm::load_model_dir(*t.dir);
        if (std::string(t.file) == "shortlist.bin") {
            const tfm::Shortlist s = tfm::Shortlist::marian_binary(path, md.model.config);
            const std::vector<std::int64_t> src = {4, 5, 2};
            (void)s.targets({&src}, {2});
        }
    } catch (const tfm::Error&) {
    }
    if (keep.empty()) ::unlink(path.c_str());
    else std::ofstream(path, std::ios::binary | std::ios::trunc) << keep;
    return 0;
}
