#include "source_lines.hpp"

#include <algorithm>
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
            if (ids) s = source_ids_from_numbers(line, config);
            else if (!prefix.empty() && line.compare(0, 2, ">>") != 0) s = source_ids(tokenizer, prefix + line, config);
            else s = source_ids(tokenizer, line, config);
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
