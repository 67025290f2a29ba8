// Reading source lines in windows for tfm-encode and tfm-translate: text (or --ids) to model
// ids, with long lines cut (a warning naming the line) or refused (--strict).
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/decode/translator.hpp"

namespace tfm::tool {

struct SourceReader {
    SourceReader(Input& in_, const Tokenizer& tokenizer_, const ModelConfig& config_, bool ids_, bool strict_,
                 std::function<void(const std::string&)> warn_)
        : in(in_), tokenizer(tokenizer_), config(config_), ids(ids_), strict(strict_), warn(std::move(warn_)) {}

    Input& in;
    const Tokenizer& tokenizer;
    const ModelConfig& config;
    bool ids = false;     // lines are integer ids
    bool strict = false;  // a line over the model's length is an error, not cut
    std::function<void(const std::string&)> warn;
    std::size_t lines_read = 0;
    std::string prefix;   // put before each text line that has no language code of its own
    std::size_t max_tokens = 0;  // --max-input-length (0: the model's positions)
    bool spell = false;   // keep how each line spells its tokens (--replace-unk)
    std::vector<std::vector<TokenSpelling>> spellings;  // with spell: per source of the last window

    // Up to `window` more sources (fewer at the end of input; none when it is over). A bad
    // line ends the window before it, and its error is thrown by the next call: what precedes
    // it is output whole first.
    std::vector<std::vector<std::int64_t>> next_window(std::size_t window);

private:
    std::exception_ptr pending;  // the error of the line after the last window, thrown next
    void read_into(std::vector<std::vector<std::int64_t>>& out, std::size_t window);
};

// A window of items read by read(out): an Error after some items is kept in pending and thrown
// by the next call, so that what precedes a bad line is output first (SourceReader, BertReader).
template <class T, class Read>
std::vector<T> read_window(std::exception_ptr& pending, Read&& read) {
    if (pending) std::rethrow_exception(std::exchange(pending, nullptr));
    std::vector<T> out;
    try {
        read(out);
    } catch (const Error&) {
        if (out.empty()) throw;
        pending = std::current_exception();
    }
    return out;
}

// A source cut to fit: line `line` of `tokens` tokens held to `cap` tokens (the model's
// positions when by_model, else --max-input-length); line_bytes, when not 0, is the length of
// a line that was cut to text_budget(cap) bytes before tokenizing (tokens then counts what
// that kept).
struct Cut {
    std::size_t line = 0, tokens = 0, cap = 0, line_bytes = 0;
};
// A warning for the cut, or with strict an Error.
void report_cut(const Cut& cut, bool by_model, bool strict, const std::function<void(const std::string&)>& warn);

// --max-input-length N and --strict: how long a source may be, and whether a longer one is
// cut (with a warning) or refused.
void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict);

// --target-lang CODE: the language code a multi-target model needs first in each source
// (">>CODE<<"); the error lists the model's codes.
void add_target_lang_option(CLI::App& app, std::string& lang);
// ">>lang<< " (or "" for no lang), checked against the model's target languages.
std::string target_lang_prefix(const Tokenizer& tokenizer, const std::string& lang);

}  // namespace tfm::tool
