#include "tfm/decode/source_reader.hpp"

#include <utility>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"

namespace tfm {

void report_cut(const Cut& cut, bool by_model, bool strict, const std::function<void(const std::string&)>& warn) {
    const std::string limit = by_model ? "the model's " + std::to_string(cut.cap) + " positions"
                                       : "--max-input-length " + std::to_string(cut.cap);
    std::string what = "line " + std::to_string(cut.line) + ": ";
    if (cut.line_bytes) {  // cut before tokenizing: the tokens it would have made are not known
        what += std::to_string(cut.line_bytes) + " bytes, more than the " + std::to_string(text_budget(cut.cap)) +
                " read for " + limit;
        if (strict) throw Error(what);
        return warn(what + "; cut to " + std::to_string(text_budget(cut.cap)) + " bytes before tokenizing" +
                    (cut.tokens > cut.cap ? ", then to " + std::to_string(cut.cap) + " tokens" : ""));
    }
    what += std::to_string(cut.tokens) + " tokens, more than " + limit;
    if (strict) throw Error(what);
    warn(what + "; cut to " + std::to_string(cut.cap));
}

std::vector<std::vector<std::int64_t>> SourceReader::next_window(std::size_t window) {
    spellings.clear();
    targets.clear();
    return windows_.next(window, [&](auto& out) { return read_one(out); }, [&] { return in.line_ready(); });
}

bool SourceReader::read_one(std::vector<std::vector<std::int64_t>>& out) {
    std::string& line = line_;
    if (!in.getline(line)) return false;
    ++lines_read;
    SourceIds s;
    std::int64_t target = -1;
    try {
        std::string_view text = line;
        if (!ids) target = tokenizer.take_line_target(text);
        if (target >= 0 && !line_targets)
            throw Error("a leading >>code<< chooses the target language in tfm-translate; tfm-decode takes --target-lang");
        if (target < 0 && line_targets && need_target && !ids)
            throw Error("no target language: give --target-lang, or start the line with >>code<< (tfm-info "
                        "--target-languages lists the codes)");
        s = ids ? source_ids_from_numbers(line, config, max_tokens)
                : source_ids(tokenizer, with_target_lang(prefix, text), config, max_tokens, spell);
    } catch (const Error& e) {
        throw Error("line " + std::to_string(lines_read) + ": " + e.what());
    }
    if (s.truncated)
        report_cut({lines_read, s.full_length, s.cap, s.line_bytes}, !max_tokens || max_tokens >= config.max_positions,
                   strict, warn);
    if (spell) spellings.push_back(std::move(s.spellings));
    if (line_targets) targets.push_back(target);
    out.push_back(std::move(s.ids));
    return true;
}

}  // namespace tfm
