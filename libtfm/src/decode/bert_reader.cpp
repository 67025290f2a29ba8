#include "tfm/decode/bert_reader.hpp"

#include <utility>

#include "tfm/base/error.hpp"
#include "tfm/decode/source_reader.hpp"

namespace tfm {

std::vector<BertInput> BertReader::next_window(std::size_t window) {
    return windows_.next(window, [&](auto& out) { return read_one(out); }, [&] { return in.line_ready(); });
}

bool BertReader::read_one(std::vector<BertInput>& out) {
    std::string& line = line_;
    if (!in.getline(line)) return false;
    ++lines_read;
    BertInput input;
    if (pairs) {
        const std::size_t tab = line.find('\t');
        if (tab == std::string::npos)
            throw Error("line " + std::to_string(lines_read) + ": no tab between the two texts of a pair (--pairs)");
        const std::string_view second = std::string_view(line).substr(tab + 1);
        input = bert_input(tokenizer, std::string_view(line).substr(0, tab), &second, max_positions, max_tokens);
    } else {
        input = bert_input(tokenizer, line, nullptr, max_positions, max_tokens);
    }
    if (input.truncated)
        report_cut({lines_read, input.full_length, input.cap, input.line_bytes}, !max_tokens || max_tokens >= max_positions,
                   strict, warn);
    out.push_back(std::move(input));
    return true;
}

}  // namespace tfm
