// tfm-info: what a model directory holds and what decoding with it will use (its own
// generation settings, before any command-line flag), as "key: value" lines.
#include <unistd.h>

#include <cstdio>

#include "common/decode_flags.hpp"
#include "common/model_option.hpp"
#include "common/tool.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/model_dir.hpp"

namespace {

std::string yes(bool b) { return b ? "yes" : "no"; }

std::string id_text(const tfm::Tokenizer& tok, std::int64_t id) {
    return std::to_string(id) + " " + tok.source_piece(id);
}

std::string architecture(const tfm::ModelConfig& c) {
    const char* pos = c.positions == tfm::PositionKind::Learned          ? "learned"
                      : c.positions == tfm::PositionKind::SinusoidalHalves ? "sinusoidal (halves)"
                      : c.positions == tfm::PositionKind::SinusoidalFairseq ? "sinusoidal (fairseq, from 2)"
                                                                          : "sinusoidal (interleaved)";
    char eps[32];
    std::snprintf(eps, sizeof eps, "%g", double(c.layer_norm_eps));
    return "d_model " + std::to_string(c.d_model) + ", layers " + std::to_string(c.encoder_layers) + "+" +
           std::to_string(c.decoder_layers) + ", heads " + std::to_string(c.encoder_heads) + "/" +
           std::to_string(c.decoder_heads) + ", ffn " + std::to_string(c.encoder_ffn) + "/" +
           std::to_string(c.decoder_ffn) + ", " + tfm::activation_name(c.activation) + ", " +
           (c.norm == tfm::NormPlacement::Post ? "post-norm" : "pre-norm") + " (eps " + eps + "), positions " + pos +
           " up to " + std::to_string(c.max_positions) + ", embeddings scaled: " + yes(c.scale_embedding);
}

std::string decoding(const tfm::DecodeOptions& o, const tfm::GenerationConfig& g) {
    const auto& s = o.search;
    char alpha[32];
    std::snprintf(alpha, sizeof alpha, "%g", s.alpha);
    const char* kind = s.penalty == tfm::LengthPenalty::Power ? "power" : s.penalty == tfm::LengthPenalty::Gnmt ? "gnmt" : "none";
    std::string out = "beam " + std::to_string(s.beam) + ", length penalty " + kind + " " + alpha + ", output limit " +
                      (o.max_len_a == 1.0 ? "" : std::to_string(o.max_len_a) + " x ") + "source length + " +
                      std::to_string(o.max_len_b);
    if (o.max_len) out += ", at most " + std::to_string(o.max_len) + " tokens";
    if (s.min_len) out += ", at least " + std::to_string(s.min_len) + " tokens";
    if (s.eos_forced_at) out += ", eos forced as token " + std::to_string(s.eos_forced_at);
    if (!s.bad_words.empty()) {
        out += ", never generated:";
        for (const auto& seq : s.bad_words) {
            out += " [";
            for (std::size_t i = 0; i < seq.size(); ++i) out += (i ? " " : "") + std::to_string(seq[i]);
            out += "]";
        }
    }
    return out + (g.present() ? " (from " + g.source + ")" : " (tfm's defaults)");
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-info", "Describe a model directory: architecture, vocabulary, special tokens, target "
                                     "languages, and the decoding settings tfm-translate will use with it.",
        "  tfm-info -m opus-mt-en-ROMANCE\n"
        "  tfm-info -m opus-mt-en-ROMANCE --target-languages | head\n");
    CLI::App& app = tool.app();
    std::string model_dir;
    bool langs_only = false;
    tfm::tool::add_model_option(app, model_dir);
    app.add_flag("--target-languages", langs_only,
                 "Print only the model's target-language codes, one per line (NLLB-200, M2M100: its languages)");
    return tool.run(argc, argv, [&] {
        tfm::ModelDir md = tfm::load_model_dir(tfm::tool::model_dir_or_default(model_dir));
        const tfm::ModelConfig& c = md.model.config;
        const auto langs = md.tokenizer.target_languages();
        tfm::Output out(STDOUT_FILENO);
        if (langs_only) {
            for (const auto& l : langs) out.write(l + "\n");
            return;
        }
        std::size_t params = 0;
        tfm::visit_parameters(md.model, [&](const std::string&, float*, std::size_t n) { params += n; });
        const tfm::TokenizerFiles files = tfm::tokenizer_files(md.path);
        std::string text;
        auto line = [&](const std::string& key, const std::string& value) { text += key + ": " + value + "\n"; };
        line("model", md.path);
        line("weights", md.weights);
        line("parameters", std::to_string(params));
        line("architecture", architecture(c));
        line("vocabulary", std::to_string(c.source_vocab()) +
                               (c.share_embeddings ? " shared" : " source, " + std::to_string(c.target_vocab()) + " target") +
                               (c.tie_word_embeddings ? ", output tied to the embeddings" : ", own output projection"));
        line("tokenizer", files.source + (files.target != files.source ? ", " + files.target : "") +
                              (files.vocab.empty() ? "" : ", " + files.vocab) +
                              (files.target_vocab.empty() ? "" : ", " + files.target_vocab));
        line("special ids", "eos " + id_text(md.tokenizer, c.eos_id) + ", pad " + id_text(md.tokenizer, c.pad_id) +
                                ", decoder start " + id_text(md.tokenizer, c.decoder_start_id) + ", unk " +
                                id_text(md.tokenizer, md.tokenizer.unk_id()));
        std::string l;
        for (const auto& code : langs) l += (l.empty() ? "" : " ") + code;
        if (md.tokenizer.has_language_tokens()) {
            line("languages", std::to_string(langs.size()) + " (--source-lang, --target-lang): " + l);
            line("source language", md.tokenizer.source_language() + " unless --source-lang says otherwise");
        } else {
            line("target languages", langs.empty() ? "none (no >>xx<< codes)" : std::to_string(langs.size()) + ": " + l);
        }
        tfm::tool::DecodeFlags defaults;
        tfm::DecodeOptions opt = tfm::tool::decode_options(defaults);
        tfm::tool::apply_generation(opt, defaults, md.generation);
        line("decoding", decoding(opt, md.generation));
        out.write(text);
    });
}
