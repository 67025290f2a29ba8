#include "tfm/model/model_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/safetensors.hpp"
#include "tfm/io/sharded_tensors.hpp"
#include "tfm/io/torch_checkpoint.hpp"

namespace tfm {

namespace {

constexpr std::size_t kMaxTokenizerFile = std::size_t(256) << 20;

std::string read_all(const std::string& path) { return read_regular_file(path, kMaxTokenizerFile); }

}  // namespace

ModelDir load_model_dir(const std::string& path, std::optional<ComputeType> pack) {
    struct stat st {};
    if (path.empty()) throw Error("the model directory is an empty string");
    if (::stat(path.c_str(), &st) != 0) {
        const int e = errno;
        throw Error(path + ": not a model directory (" + (e == ELOOP ? "symbolic link loop" : std::strerror(e)) + ")");
    }
    if (!S_ISDIR(st.st_mode))
        throw Error(path + ": not a model directory (a file; a model is a directory holding config.json)");
    ModelConfig config = load_config(path + "/config.json");
    // The weights: model.safetensors, or else pytorch_model.bin as transformers writes it; either
    // split into shards beside an index (*.index.json), as large uploads are.
    const std::string weights = path + "/model.safetensors", torch_weights = path + "/pytorch_model.bin";
    const std::string index = weights + ".index.json", torch_index = torch_weights + ".index.json";
    Model model;
    std::string read;
    try {
        if (path_present(weights)) {
            model = load_model_weights(config, SafeTensors::open(read = weights), pack);
        } else if (path_present(torch_weights)) {
            model = load_model_weights(config, TorchCheckpoint::open(read = torch_weights), pack);
        } else if (path_present(index)) {
            model = load_model_weights(config, ShardedTensors::open(read = index, [](const std::string& p) {
                return std::unique_ptr<TensorFile>(std::make_unique<SafeTensors>(SafeTensors::open(p)));
            }), pack);
        } else if (path_present(torch_index)) {
            model = load_model_weights(config, ShardedTensors::open(read = torch_index, [](const std::string& p) {
                return std::unique_ptr<TensorFile>(std::make_unique<TorchCheckpoint>(TorchCheckpoint::open(p)));
            }), pack);
        } else {
            throw Error(path + ": missing model.safetensors (or pytorch_model.bin, or a sharded checkpoint's index)");
        }
    } catch (const std::bad_alloc&) {  // under a memory limit: which file did not fit
        throw Error(read + ": out of memory while loading the weights");
    }
    Tokenizer tokenizer = Tokenizer::load(path, config);
    GenerationConfig generation = load_generation_config(path, config);
    return {path, std::move(model), std::move(tokenizer), std::move(generation), read};
}

void save_model(const std::string& dir, const Model& model, const std::string& dtype) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(dir + ": cannot create directory: " + std::strerror(errno));
    save_model_weights(dir + "/model.safetensors", model, dtype);
    write_file_atomic(dir + "/config.json", config_json(model.config));
}

void install_spm(const std::string& dir, const std::string& source_spm, const std::string& target_spm) {
    write_file_atomic(dir + "/source.spm", read_all(source_spm));
    write_file_atomic(dir + "/target.spm", read_all(target_spm));
}

void copy_tokenizer(const std::string& from, const std::string& dir) {
    const TokenizerFiles f = tokenizer_files(from);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(dir + ": cannot create directory: " + std::strerror(errno));
    if (f.fairseq) {  // NLLB, M2M100: the files keep transformers' names
        std::vector<std::string> files = f.extra;
        files.push_back(f.source);
        if (!f.vocab.empty()) files.push_back(f.vocab);
        for (const auto& path : files) write_file_atomic(dir + path.substr(path.rfind('/')), read_all(path));
        return;
    }
    install_spm(dir, f.source, f.target);
    if (!f.vocab.empty()) write_file_atomic(dir + "/vocab.json", read_all(f.vocab));
    if (!f.target_vocab.empty()) write_file_atomic(dir + "/target_vocab.json", read_all(f.target_vocab));
}

}  // namespace tfm
