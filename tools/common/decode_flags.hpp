// The search flags tfm-decode and tfm-translate share, and how both print hypotheses.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/decode/search.hpp"
#include "tfm/io/line_reader.hpp"
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
// rows: per target token (eos's last when there) its attention over the source; tokens: the
// target tokens without eos. hard: "s-t" pairs; soft: each row's weights, comma-separated.
std::string alignment_text(const std::vector<std::vector<float>>& rows, std::size_t tokens, const std::string& mode);

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
};

void add_decode_flags(CLI::App& app, DecodeFlags& f);
// Sentences read ahead and sorted by length: --window, else 8 batches, or one batch per thread
// when there are more threads (whole batches run one per thread: translator.hpp).
std::size_t read_ahead(const DecodeFlags& f);
DecodeOptions decode_options(const DecodeFlags& f);
// The model's own settings (generation_config.json) where the command line gave none: beam
// (num_beams, never below --n-best), output cap (max_length - 1 generated tokens), min_length,
// bad_words_ids, forced_eos_token_id (eos as the max_length-th token, as HF), and HF's
// length penalty (power, length_penalty or 1.0) when the model states any generation setting.
void apply_generation(DecodeOptions& o, const DecodeFlags& f, const GenerationConfig& g);

// The output lines of one input (0-based index): its best text, or with --n-best K Moses
// lines "index ||| text ||| F0= logprob WordPenalty= -tokens ||| score", with --scores
// "score<TAB>text"; --ids prints ids, not text; --alignment adds " ||| alignment" after the
// text. --format jsonl: one JSON object per input instead (docs/design.md §5). source: how
// the input spells its tokens, for --replace-unk (null: no source text).
std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const DecodeFlags& f, const std::vector<TokenSpelling>* source = nullptr);

// A file read in step with the input, a line per input line (--prefix-file, --source-text).
class AlignedLines {
public:
    AlignedLines(const std::string& path, const char* what) : lines_(std::make_unique<LineReader>(path)), path_(path), what_(what) {}
    // The lines of the next n inputs; the file ending first is an error naming it.
    std::vector<std::string> next(std::size_t n);
    // After the last input: the file must be over too.
    void finish();
    const std::string& path() const { return path_; }
    std::size_t lines_read() const { return read_; }

private:
    std::unique_ptr<LineReader> lines_;
    std::string path_, what_;
    std::size_t read_ = 0;
};

// The target prefixes of --prefix-file: text lines through the target tokenizer (no eos).
class PrefixReader {
public:
    PrefixReader(const std::string& path, const Tokenizer& tokenizer, const ModelConfig& config)
        : lines_(path, "prefix"), tokenizer_(tokenizer), config_(config) {}
    std::vector<std::vector<std::int64_t>> next(std::size_t n);
    void finish() { lines_.finish(); }

private:
    AlignedLines lines_;
    const Tokenizer& tokenizer_;
    const ModelConfig& config_;
};

}  // namespace tfm::tool
