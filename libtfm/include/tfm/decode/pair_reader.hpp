// Source/target pairs to score (tfm-score), a window at a time: from two line-aligned files, or
// from 'source<TAB>target' lines (one file or stdin); text through the model's tokenizer (a
// --target-lang code put before sources without one) or lines of integer ids. A score is of
// the whole pair, so a side longer than the model's positions is an error naming the line,
// never cut. Windows follow io/window.hpp (stop where input would be waited for; a bad line's
// error after the pairs before it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfm/io/line_reader.hpp"
#include "tfm/io/window.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

struct IdPair {
    std::vector<std::int64_t> source, target;  // [S], [T]: eos last; an empty line is eos alone
};

class PairReader {
public:
    // target "": source holds tab-separated pairs ("-": stdin). gzip files are read as text.
    PairReader(const std::string& source, const std::string& target, const Tokenizer& tokenizer,
               const ModelConfig& config, bool ids, std::string prefix);
    // Up to `size` more pairs; none once the input is over.
    std::vector<IdPair> next_window(std::size_t size);
    std::size_t lines_read() const { return line_; }
    // A model with language tokens (NLLB, M2M100): the token each text target starts with
    // (Tokenizer::encode_target; -1: none).
    std::int64_t target_language = -1;

private:
    std::optional<LineReader> tsv_, src_, tgt_;
    const Tokenizer& tokenizer_;
    const ModelConfig& config_;
    bool ids_;
    std::string prefix_;
    std::size_t line_ = 0;
    WindowReader<IdPair> windows_;

    bool next_texts(std::string& source, std::string& target);  // false at the end
    IdPair to_ids(const std::string& source, const std::string& target) const;
    bool ready();
};

}  // namespace tfm
