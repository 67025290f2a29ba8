// Source lines to model ids, a window at a time, for tfm-encode and tfm-translate: text (or
// lines of integer ids) through the tokenizer, with a --target-lang code put first, long lines
// cut with a warning naming the line or refused (strict). Windows follow io/window.hpp: they
// stop where the input would have to be waited for, and a bad line's error comes after the
// lines before it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tfm/decode/translator.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/window.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

// A source cut to fit: line `line` of `tokens` tokens held to `cap` tokens (the model's
// positions when by_model, else --max-input-length); line_bytes, when not 0, is the length of
// a line that was cut to text_budget(cap) bytes before tokenizing (tokens then counts what
// that kept).
struct Cut {
    std::size_t line = 0, tokens = 0, cap = 0, line_bytes = 0;
};
// Says what was cut through warn, or with strict throws it as an Error.
void report_cut(const Cut& cut, bool by_model, bool strict, const std::function<void(const std::string&)>& warn);

struct SourceReader {
    SourceReader(Input& in_, const Tokenizer& tokenizer_, const ModelConfig& config_, bool ids_, bool strict_,
                 std::function<void(const std::string&)> warn_)
        : in(in_), tokenizer(tokenizer_), config(config_), ids(ids_), strict(strict_), warn(std::move(warn_)) {}

    Input& in;
    const Tokenizer& tokenizer;
    const ModelConfig& config;
    bool ids = false;     // lines are integer ids
    bool strict = false;  // a line over the limit is an error, not cut
    std::function<void(const std::string&)> warn;
    std::size_t lines_read = 0;
    std::string prefix;          // Tokenizer::target_lang_prefix, put before text lines without a code
    std::size_t max_tokens = 0;  // --max-input-length (0: the model's positions)
    bool spell = false;          // keep how each line spells its tokens (--replace-unk)
    std::vector<std::vector<TokenSpelling>> spellings;  // with spell: per source of the last window
    // A model with language tokens (NLLB, M2M100): a text line may start with ">>code<<", its
    // own target language (Tokenizer::take_line_target). With line_targets, targets receives
    // it per source of the last window (-1: none), and with need_target a line without one is
    // an error; without line_targets, a code there is an error (the target is not the
    // reader's to choose: tfm-decode's --target-lang).
    bool line_targets = false, need_target = false;
    std::vector<std::int64_t> targets;

    // Up to `window` more sources [n_i] (eos last); none once the input is over.
    std::vector<std::vector<std::int64_t>> next_window(std::size_t window);

private:
    WindowReader<std::vector<std::int64_t>> windows_;
    std::string line_;  // the line being read, its buffer kept from line to line
    bool read_one(std::vector<std::vector<std::int64_t>>& out);
};

}  // namespace tfm
