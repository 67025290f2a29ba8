// Options of the tools that read source lines (tfm-encode, tfm-translate, tfm-score): how long
// a source may be, and the target language of a multi-target model.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tfm::tool {

// --max-input-length N and --strict: how long a source may be, and whether a longer one is
// cut (with a warning) or refused.
void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict);

// --target-lang CODE: the language code a multi-target model needs first in each source
// (Tokenizer::target_lang_prefix checks it).
void add_target_lang_option(CLI::App& app, std::string& lang);

}  // namespace tfm::tool
