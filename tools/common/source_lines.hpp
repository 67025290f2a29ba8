// Reading source lines in windows for tfm-encode and tfm-translate: text (or --ids) to model
// ids, with long lines cut (a warning naming the line) or refused (--strict).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tfm/io.hpp"
#include "tfm/translator.hpp"

namespace tfm::tool {

struct SourceReader {
    Input& in;
    const Tokenizer& tokenizer;
    const ModelConfig& config;
    bool ids = false;     // lines are integer ids
    bool strict = false;  // a line over the model's length is an error, not cut
    std::function<void(const std::string&)> warn;
    std::size_t lines_read = 0;

    // Up to `window` more sources (fewer at the end of input; none when it is over).
    std::vector<std::vector<std::int64_t>> next_window(std::size_t window);
};

}  // namespace tfm::tool
