#include "input_options.hpp"

#include "checks.hpp"

#include "tfm/base/error.hpp"

namespace tfm::tool {

void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict) {
    app.add_option("--max-input-length", max_tokens,
                   "Sources longer than N tokens (eos included) are cut to N, keeping eos, with a warning; with "
                   "--strict refused (default: the model's positions)")
        ->check(in_range(2, kMaxLength));
    app.add_flag("--strict", strict, "A source over the input limit is an error (default: cut, with a warning)");
}

void add_target_lang_option(CLI::App& app, std::string& lang) {
    app.add_option("--target-lang", lang,
                   "Target language of a multilingual model: a Marian model gets >>LANG<< before each line that "
                   "has no code of its own, NLLB-200 and M2M100 the language's token forced first (tfm-info lists "
                   "the codes)");
}

void add_language_options(CLI::App& app, LanguageFlags& f) {
    app.add_option("--source-lang", f.source,
                   "Source language of NLLB-200 and M2M100 models (eng_Latn; en): its token goes before each "
                   "source (default: the tokenizer's, eng_Latn or en)");
    add_target_lang_option(app, f.target);
}

Languages apply_languages(tfm::ModelDir& md, const LanguageFlags& f, const std::function<void(const std::string&)>& warn) {
    tfm::Tokenizer& t = md.tokenizer;
    Languages out;
    if (!t.has_language_tokens()) {
        if (!f.source.empty()) t.set_source_language(f.source);  // the UsageError for such a model
        out.prefix = t.target_lang_prefix(f.target);
        return out;
    }
    if (!f.source.empty()) t.set_source_language(f.source);
    else warn("no --source-lang: sources are read as " + t.source_language() + " (the tokenizer's default)");
    if (!f.target.empty()) out.forced = t.language_id(f.target, "--target-lang");
    return out;
}

}  // namespace tfm::tool
