// Reading lines for a BERT-layout model in windows (tfm-encode -m BERT_DIR): text, or with
// pairs two texts separated by a tab (segments 0 and 1), to [CLS] ... [SEP] inputs; long ones
// cut (a warning naming the line) or refused (--strict), as SourceReader does for the
// translation models.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "tfm/io/io.hpp"
#include "tfm/model/bert.hpp"

namespace tfm::tool {

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

    // Up to `window` more inputs (none at the end); a bad line ends the window before it and
    // is thrown by the next call.
    std::vector<BertInput> next_window(std::size_t window);

private:
    std::exception_ptr pending;
};

}  // namespace tfm::tool
