#include "source_lines.hpp"

#include <algorithm>
#include <utility>

#include "checks.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"

namespace tfm::tool {

std::vector<std::vector<std::int64_t>> SourceReader::next_window(std::size_t window) {
    spellings.clear();
    return read_window<std::vector<std::int64_t>>(pending, [&](auto& out) { read_into(out, window); });
}

void SourceReader::read_into(std::vector<std::vector<std::int64_t>>& out, std::size_t window) {
    std::string line;
    while (out.size() < window && in.getline(line)) {
        ++lines_read;
        SourceIds s;
        try {
            if (ids) {
                s = source_ids_from_numbers(line, config, max_tokens);
            } else {
                const std::string text = !prefix.empty() && line.compare(0, 2, ">>") != 0 ? prefix + line : line;
                s = source_ids(tokenizer, text, config, max_tokens, spell);
            }
        } catch (const Error& e) {
            throw Error("line " + std::to_string(lines_read) + ": " + e.what());
        }
        if (s.truncated)
            report_cut({lines_read, s.full_length, s.cap, s.line_bytes}, !max_tokens || max_tokens >= config.max_positions, strict, warn);
        if (spell) spellings.push_back(std::move(s.spellings));
        out.push_back(std::move(s.ids));
    }
}

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

void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict) {
    app.add_option("--max-input-length", max_tokens,
                   "Sources longer than N tokens (eos included) are cut to N, keeping eos, with a warning; with "
                   "--strict refused (default: the model's positions)")
        ->check(in_range(2, kMaxLength));
    app.add_flag("--strict", strict, "A source over the input limit is an error (default: cut, with a warning)");
}

void add_target_lang_option(CLI::App& app, std::string& lang) {
    app.add_option("--target-lang", lang,
                   "Target language of a multi-target model: puts >>LANG<< before each line that has no code "
                   "of its own (tfm-info lists the model's)");
}

std::string target_lang_prefix(const Tokenizer& tokenizer, const std::string& lang) {
    if (lang.empty()) return "";
    const auto langs = tokenizer.target_languages();
    if (std::find(langs.begin(), langs.end(), lang) != langs.end()) return ">>" + lang + "<< ";
    if (langs.empty()) throw UsageError("--target-lang " + lang + ": this model has no target-language codes");
    std::string known;
    for (std::size_t i = 0; i < langs.size() && i < 40; ++i) known += (i ? " " : "") + langs[i];
    if (langs.size() > 40) known += " ... (" + std::to_string(langs.size()) + " in all; tfm-info lists them)";
    throw UsageError("--target-lang " + lang + ": not one of the model's target languages: " + known);
}

}  // namespace tfm::tool
