#include "source_lines.hpp"

#include <utility>

#include "tfm/base/error.hpp"

namespace tfm::tool {

std::vector<std::vector<std::int64_t>> SourceReader::next_window(std::size_t window) {
    if (pending) std::rethrow_exception(std::exchange(pending, nullptr));
    std::vector<std::vector<std::int64_t>> out;
    try {
        read_into(out, window);
    } catch (const Error&) {
        if (out.empty()) throw;
        pending = std::current_exception();  // the lines before the bad one are output first
    }
    return out;
}

void SourceReader::read_into(std::vector<std::vector<std::int64_t>>& out, std::size_t window) {
    std::string line;
    while (out.size() < window && in.getline(line)) {
        ++lines_read;
        SourceIds s;
        try {
            s = ids ? source_ids_from_numbers(line, config) : source_ids(tokenizer, line, config);
        } catch (const Error& e) {
            throw Error("line " + std::to_string(lines_read) + ": " + e.what());
        }
        if (s.truncated) {
            std::string what = "line " + std::to_string(lines_read) + ": " + std::to_string(s.full_length) +
                               " tokens, more than the model's " + std::to_string(config.max_positions) + " positions";
            if (strict) throw Error(what);
            warn(what + "; cut to " + std::to_string(config.max_positions));
        }
        out.push_back(std::move(s.ids));
    }
}

}  // namespace tfm::tool
