#include "tfm/model_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "tfm/error.hpp"

namespace tfm {

namespace {

void write_atomic(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), std::streamsize(bytes.size()));
        f.flush();
        if (!f) {
            std::remove(tmp.c_str());
            throw Error(path + ": cannot write");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error(path + ": cannot rename into place: " + std::strerror(errno));
    }
}

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot open");
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

ModelDir load_model_dir(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(path + ": not a model directory (" + (errno ? std::strerror(errno) : "not a directory") + ")");
    ModelConfig config = load_config(path + "/config.json");
    const std::string weights = path + "/model.safetensors";
    if (::stat(weights.c_str(), &st) != 0) throw Error(path + ": missing model.safetensors");
    Model model = load_model_weights(config, SafeTensors::open(weights));
    Tokenizer tokenizer = Tokenizer::load(path, config);
    return {path, std::move(model), std::move(tokenizer)};
}

void save_model(const std::string& dir, const Model& model, const std::string& dtype) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(dir + ": cannot create directory: " + std::strerror(errno));
    save_model_weights(dir + "/model.safetensors", model, dtype);
    write_atomic(dir + "/config.json", config_json(model.config));
}

void install_spm(const std::string& dir, const std::string& source_spm, const std::string& target_spm) {
    write_atomic(dir + "/source.spm", read_all(source_spm));
    write_atomic(dir + "/target.spm", read_all(target_spm));
}

void copy_tokenizer(const std::string& from, const std::string& dir) {
    const TokenizerFiles f = tokenizer_files(from);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(dir + ": cannot create directory: " + std::strerror(errno));
    install_spm(dir, f.source, f.target);
    if (!f.vocab.empty()) write_atomic(dir + "/vocab.json", read_all(f.vocab));
}

}  // namespace tfm
