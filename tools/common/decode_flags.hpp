// The search and output flags tfm-decode and tfm-translate share (tfm-score: the alignment ones).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/decode/search.hpp"
#include "tfm/decode/output_format.hpp"
#include "tfm/model/generation.hpp"
#include "tfm/model/tokenizer.hpp"
#include "tfm/decode/translator.hpp"

namespace tfm::tool {

// --alignment hard|soft, --alignment-layer L, --alignment-heads N (tfm-decode, tfm-translate,
// tfm-score).
struct AlignmentFlags {
    std::string mode;     // "" | hard | soft
    long layer = -1;      // decoder layer whose attention aligns (-1: the last)
    std::size_t heads = 0;  // its first heads averaged (0: all)
    const CLI::App* app = nullptr;
    // The attention to keep (with --alignment or when needed), or none; --alignment-layer or
    // --alignment-heads without a use is a usage error.
    std::optional<DecodeOptions::Attention> attention(bool needed = false) const;
};
void add_alignment_flags(CLI::App& app, AlignmentFlags& f);

struct DecodeFlags {
    std::size_t beam = 4, n_best = 1, batch = 32, max_len = 0, min_len = 0, max_len_b = 50, window = 0;
    double max_len_a = 1.0, alpha = 0.6;
    std::string penalty = "gnmt";
    std::string format = "text";         // text | jsonl
    bool scores = false, ids = false;
    int threads = 0;
    bool sample = false;                 // sampling instead of search
    std::size_t sampling_topk = 0;
    double sampling_topp = 1.0, temperature = 1.0;
    std::uint64_t seed = 0;
    std::string prefix_file;             // line-aligned target prefixes
    AlignmentFlags alignment;
    bool replace_unk = false;            // <unk> -> the source token attended most
    const CLI::App* app = nullptr;  // set by add_decode_flags: which flags the command line gave
    bool given(const char* flag) const { return app && app->count(flag) > 0; }
    OutputFormat output_format() const;  // how the hypotheses are printed (decode/output_format.hpp)
};

void add_decode_flags(CLI::App& app, DecodeFlags& f);
// Sentences read ahead and sorted by length: --window, else 8 batches, or one batch per thread
// when there are more threads (whole batches run one per thread: translator.hpp).
std::size_t read_ahead(const DecodeFlags& f);
DecodeOptions decode_options(const DecodeFlags& f);
// The model's own settings (decode/generation_settings.hpp) where the command line gave none.
void apply_generation(DecodeOptions& o, const DecodeFlags& f, const GenerationConfig& g);

}  // namespace tfm::tool
