// Options of the tools that read source lines (tfm-encode, tfm-translate, tfm-score): how long
// a source may be, and the target language of a multi-target model.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "tfm/decode/shortlist.hpp"
#include "tfm/model/model_dir.hpp"

namespace tfm::tool {

// --max-input-length N and --strict: how long a source may be, and whether a longer one is
// cut (with a warning) or refused.
void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict);

// --target-lang CODE: the language code a multi-target model needs first in each source
// (Tokenizer::target_lang_prefix checks it).
void add_target_lang_option(CLI::App& app, std::string& lang);

// --source-lang and --target-lang: the languages of a multilingual model.
struct LanguageFlags {
    std::string source, target;
};
void add_language_options(CLI::App& app, LanguageFlags& f);

// What the flags mean for md's model. A Marian model: the ">>code<< " put before lines
// (prefix); --source-lang is a UsageError. A model with language tokens (NLLB, M2M100): the
// tokenizer reads sources in --source-lang (else its default, said through warn), and the
// target language's token is forced first (forced; none without --target-lang).
struct Languages {
    std::string prefix;
    std::optional<std::int64_t> forced;
};
Languages apply_languages(tfm::ModelDir& md, const LanguageFlags& f, const std::function<void(const std::string&)>& warn);

// --shortlist FILE [FIRST [BEST [THRESHOLD]]] (Marian's lexical shortlist, text or binary) and
// --vmap FILE (CTranslate2's vocabulary map): what tfm-translate restricts the output layer to.
struct ShortlistFlags {
    std::vector<std::string> marian;
    std::string vmap;
};
void add_shortlist_options(CLI::App& app, ShortlistFlags& f);
// The shortlist the flags name for md's model (null when none); bad values are UsageErrors.
std::shared_ptr<const tfm::Shortlist> load_shortlist(const ShortlistFlags& f, const tfm::ModelDir& md);

}  // namespace tfm::tool
