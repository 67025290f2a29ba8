#include "bert_lines.hpp"

#include <utility>

#include "source_lines.hpp"
#include "tfm/base/error.hpp"

namespace tfm::tool {

std::vector<BertInput> BertReader::next_window(std::size_t window) {
    return read_window<BertInput>(pending, [&](std::vector<BertInput>& out) {
        std::string line;
        while (out.size() < window && in.getline(line)) {
            ++lines_read;
            const std::string where = "line " + std::to_string(lines_read);
            BertInput input;
            if (pairs) {
                const std::size_t tab = line.find('\t');
                if (tab == std::string::npos) throw Error(where + ": no tab between the two texts of a pair (--pairs)");
                const std::string_view second = std::string_view(line).substr(tab + 1);
                input = bert_input(tokenizer, std::string_view(line).substr(0, tab), &second, max_positions, max_tokens);
            } else {
                input = bert_input(tokenizer, line, nullptr, max_positions, max_tokens);
            }
            if (input.truncated)
                report_cut({lines_read, input.full_length, input.cap, input.line_bytes},
                           !max_tokens || max_tokens >= max_positions, strict, warn);
            out.push_back(std::move(input));
        }
    });
}

}  // namespace tfm::tool
