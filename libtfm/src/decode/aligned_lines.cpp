#include "tfm/decode/aligned_lines.hpp"

#include "tfm/base/error.hpp"

namespace tfm {

std::vector<std::string> AlignedLines::next(std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!lines_->next(out[i]))
            throw Error(path_ + ": ends after line " + std::to_string(read_) + ", before the input does (" + what_ +
                        " file: a line per input line)");
        ++read_;
    }
    return out;
}

void AlignedLines::finish() {
    std::string line;
    if (lines_->next(line)) throw Error(path_ + ": more lines than the input's " + std::to_string(read_));
}

std::vector<std::vector<std::int64_t>> PrefixReader::next(std::size_t n) {
    std::vector<std::vector<std::int64_t>> out;
    const std::size_t first = lines_.lines_read();
    const auto lines = lines_.next(n);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string where = lines_.path() + ": line " + std::to_string(first + i + 1);
        std::vector<std::int64_t> ids = tokenizer_.encode_target(lines[i]);
        ids.pop_back();  // eos: the output goes on after the prefix
        for (std::int64_t id : ids)
            if (id == config_.pad_id) throw Error(where + ": the prefix holds the pad id");
        if (ids.size() + 1 > config_.max_positions)
            throw Error(where + ": a prefix of " + std::to_string(ids.size()) + " tokens leaves no room in the model's " +
                        std::to_string(config_.max_positions) + " positions");
        out.push_back(std::move(ids));
    }
    return out;
}

}  // namespace tfm
