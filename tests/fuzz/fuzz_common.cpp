#include "fuzz_common.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "tfm/base/error.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/io/stream.hpp"

namespace tfm_fuzz {

const std::string& scratch_dir() {
    static const std::string dir = [] {
        std::string d = "/tmp/tfm-fuzz-" + std::to_string(::getpid());
        ::mkdir(d.c_str(), 0755);
        return d;
    }();
    return dir;
}

std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return path;
}

void read_stream(std::string bytes) {
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
}

const std::string& tiny_model_dir() {
    static const std::string dir = [] {
        const std::string d = scratch_dir() + "/model";
        const std::string text = scratch_dir() + "/words.txt";
        {
            std::ofstream f(text);
            const char* words[] = {"ka", "lo", "mi", "nu", "pe", "ra", "si", "tu", "Haus", "Hund", "über", "naïve"};
            for (int i = 0; i < 400; ++i) f << words[i % 12] << ' ' << words[(i * 7) % 12] << ' ' << words[(i * 5) % 12] << '\n';
        }
        ::mkdir(d.c_str(), 0755);
        tfm::SpmTrainOptions so;
        so.vocab_size = 40;
        tfm::train_sentencepiece({text}, d + "/spm.tmp", so);
        tfm::ModelConfig c = tfm::preset_config("tiny", tfm::spm_info(d + "/spm.tmp").pieces);
        c.max_positions = 32;
        tfm::install_spm(d, d + "/spm.tmp", d + "/spm.tmp");
        std::remove((d + "/spm.tmp").c_str());
        tfm::save_model(d, tfm::random_model(c, 1));
        return d;
    }();
    return dir;
}

}  // namespace tfm_fuzz
