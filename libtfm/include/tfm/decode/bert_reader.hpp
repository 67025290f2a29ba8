// Lines for a BERT-layout model (tfm-encode -m BERT_DIR), a window at a time: text, or with
// pairs two texts separated by a tab (segments 0 and 1), to [CLS] ... [SEP] inputs; long ones
// cut (a warning naming the line) or refused (strict), as SourceReader does for the
// translation models, with the same windows (io/window.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tfm/io/io.hpp"
#include "tfm/io/window.hpp"
#include "tfm/model/bert.hpp"

namespace tfm {

struct BertReader {
    BertReader(Input& in_, const WordPiece& tokenizer_, std::size_t max_positions_, bool pairs_, bool strict_,
               std::size_t max_tokens_, std::function<void(const std::string&)> warn_)
        : in(in_), tokenizer(tokenizer_), max_positions(max_positions_), pairs(pairs_), strict(strict_),
          max_tokens(max_tokens_), warn(std::move(warn_)) {}

    Input& in;
    const WordPiece& tokenizer;
    std::size_t max_positions = 0;
    bool pairs = false, strict = false;
    std::size_t max_tokens = 0;  // --max-input-length (0: the model's positions)
    std::function<void(const std::string&)> warn;
    std::size_t lines_read = 0;

    // Up to `window` more inputs; none once the input is over.
    std::vector<BertInput> next_window(std::size_t window);

private:
    WindowReader<BertInput> windows_;
    std::string line_;  // the line being read, its buffer kept from line to line
    bool read_one(std::vector<BertInput>& out);
};

}  // namespace tfm
