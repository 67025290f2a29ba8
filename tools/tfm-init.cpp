// tfm-init: a new model directory with random (Xavier) weights, from a preset and a
// SentencePiece model (given, or trained here on text files).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/tool.hpp"
#include "tfm/error.hpp"
#include "tfm/model_dir.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-init", "Create a randomly initialised Transformer model directory.",
        "  tfm-init -o model --preset base --train-spm corpus.de corpus.en --vocab-size 8000\n"
        "  tfm-init -o tiny --preset tiny --spm existing.model --seed 7\n"
        "  echo 'ein Haus' | tfm-translate -m model     # runs (untrained: the output is noise)\n");
    CLI::App& app = tool.app();
    std::string out, preset = "base", spm, positions, norm, activation;
    std::vector<std::string> texts;
    std::uint64_t seed = 1;
    tfm::SpmTrainOptions spm_opt;
    std::size_t max_positions = 0, layers = 0, d_model = 0, heads = 0, ffn = 0;
    bool untied = false;
    app.add_option("-o,--output", out, "Model directory to create")->required();
    app.add_option("-p,--preset", preset, "base (N=6, D=512, H=8, F=2048), big (6, 1024, 16, 4096), small (3, 256, 4, 1024), tiny (2, 32, 4, 64)")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    auto* spm_opt_flag = app.add_option("--spm", spm, "SentencePiece model to use")->check(CLI::ExistingFile);
    auto* train_flag = app.add_option("--train-spm", texts, "Train a SentencePiece model on these text files (gzip ok)")
        ->check(CLI::ExistingFile);
    spm_opt_flag->excludes(train_flag);
    app.add_option("--vocab-size", spm_opt.vocab_size, "With --train-spm: pieces (default 8000)")->needs(train_flag);
    app.add_option("--spm-type", spm_opt.model_type, "With --train-spm: unigram (default) or bpe")
        ->needs(train_flag)->check(CLI::IsMember({"unigram", "bpe"}));
    app.add_option("--seed", seed, "Seed of the weights (default 1)");
    app.add_option("--positions", positions, "sinusoidal_interleaved (default, the paper), sinusoidal_halves or learned")
        ->check(CLI::IsMember({"sinusoidal_interleaved", "sinusoidal_halves", "learned"}));
    app.add_option("--norm", norm, "post (default, the paper) or pre")->check(CLI::IsMember({"post", "pre"}));
    app.add_option("--activation", activation, "relu (default), gelu or swish")->check(CLI::IsMember({"relu", "gelu", "swish"}));
    app.add_option("--max-positions", max_positions, "Longest sequence (default 512)")->check(CLI::PositiveNumber);
    app.add_option("--layers", layers, "Encoder and decoder layers N")->check(CLI::PositiveNumber);
    app.add_option("--d-model", d_model, "Model width D")->check(CLI::PositiveNumber);
    app.add_option("--heads", heads, "Attention heads H")->check(CLI::PositiveNumber);
    app.add_option("--ffn", ffn, "Feed-forward width F")->check(CLI::PositiveNumber);
    app.add_flag("--untied", untied, "A separate output projection (default: tied to the shared embedding)");

    return tool.run(argc, argv, [&] {
        if (spm.empty() && texts.empty()) throw tfm::UsageError("give --spm MODEL or --train-spm TEXT...");
        if (::mkdir(out.c_str(), 0755) != 0 && errno != EEXIST) throw tfm::Error(out + ": " + std::strerror(errno));
        if (!texts.empty()) {
            spm = out + "/spm.tmp.model";
            tfm::train_sentencepiece(texts, spm, spm_opt);
        }
        tfm::SpmInfo info = tfm::spm_info(spm);
        if (info.pad < 0 || info.eos < 0)
            throw tfm::Error(spm + ": the SentencePiece model needs pad and eos pieces (train it with --pad_id)");
        tfm::ModelConfig c = tfm::preset_config(preset, info.pieces);
        c.pad_id = c.decoder_start_id = info.pad;
        c.eos_id = info.eos;
        if (!positions.empty())
            c.positions = positions == "learned" ? tfm::PositionKind::Learned
                          : positions == "sinusoidal_halves" ? tfm::PositionKind::SinusoidalHalves
                                                             : tfm::PositionKind::SinusoidalInterleaved;
        if (!norm.empty()) c.norm = norm == "pre" ? tfm::NormPlacement::Pre : tfm::NormPlacement::Post;
        if (!activation.empty()) c.activation = tfm::parse_activation(activation);
        if (max_positions) c.max_positions = max_positions;
        if (layers) c.encoder_layers = c.decoder_layers = layers;
        if (d_model) c.d_model = d_model;
        if (heads) c.encoder_heads = c.decoder_heads = heads;
        if (ffn) c.encoder_ffn = c.decoder_ffn = ffn;
        c.tie_word_embeddings = !untied;
        try {
            tfm::validate_config(c);
        } catch (const tfm::Error& e) {
            throw tfm::UsageError(e.what());
        }
        tfm::install_spm(out, spm);
        if (!texts.empty()) std::remove(spm.c_str());
        tfm::save_model(out, tfm::random_model(c, seed));
    });
}
