#include "model_flags.hpp"

#include "checks.hpp"

#include <unistd.h>

#include <cstdio>

#include "tfm/base/error.hpp"
#include "tfm/model/model.hpp"
#include "tfm/model/model_dir.hpp"

namespace tfm::tool {

namespace {
const char* const kArchOptions[] = {"--preset", "--position-encoding", "--norm", "--activation", "--max-positions",
                                    "--layers", "--d-model", "--heads", "--ffn", "--untied"};
}

void add_arch_flags(CLI::App& app, ArchFlags& f) {
    app.add_option("-p,--preset", f.preset,
                   "base (N=6, D=512, H=8, F=2048; default), big (6, 1024, 16, 4096), small (3, 256, 4, 1024), tiny (2, 32, 4, 64)")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    app.add_option("--position-encoding", f.positions, "Positional encoding: sinusoidal_interleaved (default, the paper), sinusoidal_halves or learned")
        ->check(CLI::IsMember({"sinusoidal_interleaved", "sinusoidal_halves", "learned"}));
    app.add_option("--norm", f.norm, "post (default, the paper) or pre")->check(CLI::IsMember({"post", "pre"}));
    app.add_option("--activation", f.activation, "relu (default), gelu or swish")
        ->check(CLI::IsMember({"relu", "gelu", "swish"}));
    app.add_option("--max-positions", f.max_positions, "Longest sequence (default 512)")->check(in_range(1, double(kMaxPositions)));
    app.add_option("--layers", f.layers, "Encoder and decoder layers N")->check(in_range(1, double(kMaxLayers)));
    app.add_option("--d-model", f.d_model, "Model width D")->check(in_range(1, kMaxDim));
    app.add_option("--heads", f.heads, "Attention heads H")->check(in_range(1, kMaxDim));
    app.add_option("--ffn", f.ffn, "Feed-forward width F")->check(in_range(1, double(kMaxFfn)));
    app.add_flag("--untied", f.untied, "A separate output projection (default: tied to the shared embedding)");
}

bool arch_flags_given(const CLI::App& app) {
    for (const char* name : kArchOptions)
        if (app.count(name) > 0) return true;
    return false;
}

ModelConfig config_from_flags(const ArchFlags& f, const SpmChoice& spm) {
    const SpmInfo info = spm_info(spm.source);
    if (info.pad < 0 || info.eos < 0)
        throw Error(spm.source + ": the SentencePiece model needs pad and eos pieces (train it with --pad_id)");
    ModelConfig c = preset_config(f.preset, info.pieces);
    c.pad_id = c.decoder_start_id = info.pad;
    c.eos_id = info.eos;
    if (!spm.shared) {
        const SpmInfo t = spm_info(spm.target);
        if (t.pad != info.pad || t.eos != info.eos)
            throw UsageError(spm.source + " and " + spm.target + " disagree on the pad and eos ids (" +
                             std::to_string(info.pad) + "/" + std::to_string(info.eos) + " against " +
                             std::to_string(t.pad) + "/" + std::to_string(t.eos) + ")");
        c.share_embeddings = false;
        c.decoder_vocab_size = t.pieces;
    }
    if (!f.positions.empty())
        c.positions = f.positions == "learned"             ? PositionKind::Learned
                      : f.positions == "sinusoidal_halves" ? PositionKind::SinusoidalHalves
                                                           : PositionKind::SinusoidalInterleaved;
    if (!f.norm.empty()) c.norm = f.norm == "pre" ? NormPlacement::Pre : NormPlacement::Post;
    if (!f.activation.empty()) c.activation = parse_activation(f.activation);
    if (f.max_positions) c.max_positions = f.max_positions;
    if (f.layers) c.encoder_layers = c.decoder_layers = f.layers;
    if (f.d_model) c.d_model = f.d_model;
    if (f.heads) c.encoder_heads = c.decoder_heads = f.heads;
    if (f.ffn) c.encoder_ffn = c.decoder_ffn = f.ffn;
    c.tie_word_embeddings = !f.untied;
    try {
        validate_config(c);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    return c;
}

}  // namespace tfm::tool

namespace tfm::tool {

void check_fits_in_memory(const ModelConfig& c, std::size_t copies) {
    const double d = double(c.d_model), v = double(c.source_vocab()), vt = double(c.target_vocab());
    double params = vt * d + (c.share_embeddings ? 0 : v * d) + (c.tie_word_embeddings ? 0 : vt * d);
    if (c.positions == PositionKind::Learned) params += 2 * double(c.max_positions) * d;
    params += double(c.encoder_layers) * (4 * d * d + 2 * d * double(c.encoder_ffn));
    params += double(c.decoder_layers) * (8 * d * d + 2 * d * double(c.decoder_ffn));
    const double need = params * 4 * double(copies);
    const double have = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
    if (have > 0 && need > have) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "a model of %.3g parameters needs %.1f GiB here, more than this machine's %.1f GiB",
                      params, need / double(1u << 30), have / double(1u << 30));
        throw UsageError(std::string(buf) + ": choose a smaller --d-model, --ffn, --layers or vocabulary");
    }
}

ModelConfig create_model(const std::string& dir, const ArchFlags& arch, const VocabularySource& vocab,
                         std::uint64_t seed, std::size_t copies) {
    SpmChoice spm;
    const bool train = vocab.spm.empty();
    if (train) {
        spm = {dir + "/spm.src.tmp.model", dir + "/spm.tgt.tmp.model", !vocab.separate};
        if (vocab.separate) {
            train_sentencepiece(vocab.source_texts, spm.source, vocab.training);
            train_sentencepiece(vocab.target_texts, spm.target, vocab.training);
        } else {
            std::vector<std::string> all = vocab.source_texts;
            all.insert(all.end(), vocab.target_texts.begin(), vocab.target_texts.end());
            spm.target = spm.source;
            train_sentencepiece(all, spm.source, vocab.training);
        }
    } else {
        spm = {vocab.spm.front(), vocab.spm.back(), vocab.spm.size() == 1};
    }
    const ModelConfig c = config_from_flags(arch, spm);
    check_fits_in_memory(c, copies);
    install_spm(dir, spm.source, spm.target);
    if (train) {
        std::remove(spm.source.c_str());
        std::remove(spm.target.c_str());
    }
    save_model(dir, random_model(c, seed));
    return c;
}

}  // namespace tfm::tool
