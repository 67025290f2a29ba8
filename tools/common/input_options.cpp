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

void add_shortlist_options(CLI::App& app, ShortlistFlags& f) {
    auto* m = app.add_option("--shortlist", f.marian,
                             "A vocabulary shortlist, Marian's (text or binary): FILE [FIRST [BEST [THRESHOLD]]]: target "
                             "ids below FIRST always, and each source piece's BEST most probable targets above THRESHOLD "
                             "(defaults 100 100 0; a binary file has its own); tfm-shortlist makes one")
                  ->expected(1, 4);
    app.add_option("--vmap", f.vmap, "A vocabulary shortlist as CTranslate2's vocabulary map (n-gram<TAB>targets lines)")
        ->excludes(m);
}

namespace {
std::size_t count_value(const std::string& v, const char* what) {
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
        n = std::stoull(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size() || v[0] == '-' || n > (1ull << 32))
        throw tfm::UsageError(std::string("--shortlist: ") + what + " '" + v + "' is not a count (0 to 4294967296)");
    return std::size_t(n);
}
}  // namespace

std::shared_ptr<const tfm::Shortlist> load_shortlist(const ShortlistFlags& f, const tfm::ModelDir& md) {
    if (!f.vmap.empty())
        return std::make_shared<const tfm::Shortlist>(tfm::Shortlist::vocabulary_map(f.vmap, md.tokenizer, md.model.config));
    if (f.marian.empty()) return nullptr;
    const std::size_t first = f.marian.size() > 1 ? count_value(f.marian[1], "FIRST") : 100;
    const std::size_t best = f.marian.size() > 2 ? count_value(f.marian[2], "BEST") : 100;
    double threshold = 0;
    if (f.marian.size() > 3) {
        char* end = nullptr;
        threshold = std::strtod(f.marian[3].c_str(), &end);
        if (end != f.marian[3].c_str() + f.marian[3].size() || !(threshold >= 0 && threshold < 1))
            throw tfm::UsageError("--shortlist: THRESHOLD '" + f.marian[3] + "' is not a probability in [0, 1)");
    }
    if (best == 0) throw tfm::UsageError("--shortlist: BEST must be at least 1");
    return std::make_shared<const tfm::Shortlist>(
        tfm::Shortlist::marian(f.marian[0], md.tokenizer, md.model.config, first, best, threshold));
}

}  // namespace tfm::tool
