#include "tfm/model/language_tokens.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"

namespace tfm {

namespace {

constexpr std::size_t kMaxSmallJson = std::size_t(16) << 20;   // tokenizer_config.json, special_tokens_map.json
constexpr std::size_t kMaxTokenizerJson = std::size_t(256) << 20;  // tokenizer.json (holds the whole vocabulary)
constexpr std::size_t kMaxLanguages = 100000;

// The language sets of fairseq's M2M100 dictionaries, in their order (the order fixes the ids).
const std::vector<std::string>& m2m100_codes(const std::string& set, const std::string& where) {
    static const std::vector<std::string> m2m100 = {
        "af", "am", "ar", "ast", "az", "ba", "be", "bg", "bn", "br", "bs", "ca", "ceb", "cs", "cy", "da", "de",
        "el", "en", "es", "et", "fa", "ff", "fi", "fr", "fy", "ga", "gd", "gl", "gu", "ha", "he", "hi", "hr",
        "ht", "hu", "hy", "id", "ig", "ilo", "is", "it", "ja", "jv", "ka", "kk", "km", "kn", "ko", "lb", "lg",
        "ln", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my", "ne", "nl", "no", "ns", "oc", "or",
        "pa", "pl", "ps", "pt", "ro", "ru", "sd", "si", "sk", "sl", "so", "sq", "sr", "ss", "su", "sv", "sw",
        "ta", "th", "tl", "tn", "tr", "uk", "ur", "uz", "vi", "wo", "xh", "yi", "yo", "zh", "zu"};
    static const std::vector<std::string> wmt21 = {"en", "ha", "is", "ja", "cs", "ru", "zh", "de"};
    if (set == "m2m100") return m2m100;
    if (set == "wmt21") return wmt21;
    throw Error(where + ": language_codes " + json_excerpt(Json(set)) + " is neither m2m100 nor wmt21");
}

Json optional_json(const std::string& path, std::size_t max) {
    return path_present(path) ? read_json_file(path, max) : Json::object();
}

// A token given as a string or as {"content": ...}; "" otherwise.
std::string token_text(const Json& t) {
    if (t.is_string()) return t.get<std::string>();
    if (t.is_object() && t.contains("content") && t["content"].is_string()) return t["content"].get<std::string>();
    return "";
}

bool standard_special(const std::string& t) {
    return t == "<s>" || t == "<pad>" || t == "</s>" || t == "<unk>" || t == "<mask>";
}

// additional_special_tokens of tokenizer_config.json, else of special_tokens_map.json.
std::vector<std::string> additional_tokens(const Json& config, const std::string& dir) {
    const std::string map_path = dir + "/special_tokens_map.json";
    const Json map = optional_json(map_path, kMaxSmallJson);
    const std::pair<const Json*, std::string> sources[] = {{&config, dir + "/tokenizer_config.json"}, {&map, map_path}};
    for (const auto& [j, where] : sources) {
        if (!j->is_object() || !json_has(*j, "additional_special_tokens")) continue;
        const Json& list = (*j)["additional_special_tokens"];
        if (!list.is_array() || list.size() > kMaxLanguages)
            throw Error(where + ": additional_special_tokens is " + json_excerpt(list) + ", not a list of tokens");
        std::vector<std::string> out;
        for (const Json& t : list) {
            std::string s = token_text(t);
            if (s.empty()) throw Error(where + ": additional_special_tokens holds " + json_excerpt(t));
            out.push_back(std::move(s));
        }
        return out;
    }
    return {};
}

// id -> token of the added tokens: tokenizer_config.json's added_tokens_decoder, else
// tokenizer.json's added_tokens (empty when neither has them).
std::map<std::int64_t, std::string> added_tokens(const Json& config, const std::string& dir, std::size_t vocab) {
    std::map<std::int64_t, std::string> out;
    auto add = [&](std::int64_t id, const std::string& token, const std::string& where) {
        if (id < 0 || std::size_t(id) >= vocab)
            throw Error(where + ": token " + json_excerpt(Json(token)) + " has id " + std::to_string(id) +
                        ", outside the model's vocabulary of " + std::to_string(vocab));
        if (token.empty()) throw Error(where + ": added token " + std::to_string(id) + " has no content");
        if (!out.emplace(id, token).second) throw Error(where + ": two added tokens have id " + std::to_string(id));
    };
    const std::string cfg_path = dir + "/tokenizer_config.json";
    if (config.is_object() && json_has(config, "added_tokens_decoder")) {
        const Json& d = config["added_tokens_decoder"];
        if (!d.is_object() || d.size() > kMaxLanguages)
            throw Error(cfg_path + ": added_tokens_decoder is " + json_excerpt(d) + ", not an object of id -> token");
        for (const auto& [key, t] : d.items()) {
            std::int64_t id = -1;
            try {
                std::size_t used = 0;
                id = std::stoll(key, &used);
                if (used != key.size()) id = -1;
            } catch (const std::exception&) {
            }
            if (id < 0) throw Error(cfg_path + ": added_tokens_decoder key " + json_excerpt(Json(key)) + " is not an id");
            add(id, token_text(t), cfg_path);
        }
        return out;
    }
    const std::string tj_path = dir + "/tokenizer.json";
    if (!path_present(tj_path)) return out;
    const Json tj = read_json_file(tj_path, kMaxTokenizerJson);
    if (!tj.is_object() || !json_has(tj, "added_tokens")) return out;
    const Json& list = tj["added_tokens"];
    if (!list.is_array() || list.size() > kMaxLanguages)
        throw Error(tj_path + ": added_tokens is " + json_excerpt(list) + ", not a list");
    for (const Json& t : list) {
        if (!t.is_object()) throw Error(tj_path + ": added_tokens holds " + json_excerpt(t));
        add(json_int(t, "id", 0, std::int64_t(vocab) - 1, tj_path + " added_tokens"), token_text(t), tj_path);
    }
    return out;
}

void sort_codes(LanguageTokens& t) {
    std::vector<std::size_t> order(t.codes.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t.codes[a] < t.codes[b]; });
    LanguageTokens s = t;
    for (std::size_t i = 0; i < order.size(); ++i) s.codes[i] = t.codes[order[i]], s.ids[i] = t.ids[order[i]];
    t = std::move(s);
}

}  // namespace

std::int64_t LanguageTokens::id(const std::string& code) const {
    std::string c = code;
    if (kind == FairseqTokenizer::M2m100 && c.size() > 4 && c.compare(0, 2, "__") == 0 &&
        c.compare(c.size() - 2, 2, "__") == 0)
        c = c.substr(2, c.size() - 4);
    const auto it = std::lower_bound(codes.begin(), codes.end(), c);
    return it != codes.end() && *it == c ? ids[std::size_t(it - codes.begin())] : -1;
}

std::string LanguageTokens::token(std::size_t i) const {
    return kind == FairseqTokenizer::M2m100 ? "__" + codes.at(i) + "__" : codes.at(i);
}

FairseqTokenizer fairseq_tokenizer_kind(const std::string& dir) {
    const std::string path = dir + "/tokenizer_config.json";
    const Json config = optional_json(path, kMaxSmallJson);
    if (config.is_object() && json_has(config, "tokenizer_class")) {
        const std::string cls = json_string(config, "tokenizer_class", path);
        if (cls.rfind("Nllb", 0) == 0) return FairseqTokenizer::Nllb;
        if (cls.rfind("M2M100", 0) == 0) return FairseqTokenizer::M2m100;
        throw Error(path + ": tokenizer_class " + json_excerpt(Json(cls)) +
                    " beside sentencepiece.bpe.model: tfm reads NllbTokenizer and M2M100Tokenizer");
    }
    return path_present(dir + "/vocab.json") ? FairseqTokenizer::M2m100 : FairseqTokenizer::Nllb;
}

LanguageTokens read_language_tokens(const std::string& dir, FairseqTokenizer kind, std::int64_t first_free,
                                    std::size_t vocab) {
    const std::string cfg_path = dir + "/tokenizer_config.json";
    const Json config = optional_json(cfg_path, kMaxSmallJson);
    if (!config.is_object()) throw Error(cfg_path + ": not a JSON object");
    LanguageTokens t;
    t.kind = kind;
    const bool nllb = kind == FairseqTokenizer::Nllb;
    t.default_source = nllb ? "eng_Latn" : "en";
    if (json_has(config, "src_lang")) t.default_source = json_string(config, "src_lang", cfg_path);
    if (json_has(config, "legacy_behaviour")) t.legacy = nllb && json_bool(config, "legacy_behaviour", cfg_path);
    if (json_has(config, "clean_up_tokenization_spaces"))
        t.clean_up_spaces = json_bool(config, "clean_up_tokenization_spaces", cfg_path);
    auto check_id = [&](std::int64_t id, const std::string& token) {
        if (id < 0 || std::size_t(id) >= vocab)
            throw Error(dir + ": language token " + token + " would have id " + std::to_string(id) +
                        ", outside the model's vocabulary of " + std::to_string(vocab));
    };
    if (nllb) {
        const auto added = added_tokens(config, dir, vocab);
        if (!added.empty()) {
            for (const auto& [id, token] : added) {
                if (token == "<mask>") t.mask = id;
                if (standard_special(token)) continue;
                if (id < first_free)
                    throw Error(dir + ": added token " + json_excerpt(Json(token)) + " has id " + std::to_string(id) +
                                ", inside the SentencePiece pieces (below " + std::to_string(first_free) + ")");
                t.codes.push_back(token);
                t.ids.push_back(id);
            }
        } else {
            // transformers' older numbering: the codes after the pieces, in order, then <mask>.
            const auto list = additional_tokens(config, dir);
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (standard_special(list[i])) continue;
                t.codes.push_back(list[i]);
                t.ids.push_back(first_free + std::int64_t(t.codes.size()) - 1);
                check_id(t.ids.back(), list[i]);
            }
            t.mask = first_free + std::int64_t(t.codes.size());
            if (std::size_t(t.mask) >= vocab) t.mask = -1;
        }
        if (t.codes.empty())
            throw Error(dir + ": no language codes (NLLB's are the added tokens of tokenizer_config.json or "
                        "tokenizer.json, or additional_special_tokens of special_tokens_map.json)");
    } else {
        const std::string set = json_has(config, "language_codes") ? json_string(config, "language_codes", cfg_path) : "m2m100";
        const auto& codes = m2m100_codes(set, cfg_path);
        for (std::size_t i = 0; i < codes.size(); ++i) {
            t.codes.push_back(codes[i]);
            t.ids.push_back(first_free + std::int64_t(i));
            check_id(t.ids.back(), "__" + codes[i] + "__");
        }
    }
    sort_codes(t);
    for (std::size_t i = 1; i < t.codes.size(); ++i)
        if (t.codes[i] == t.codes[i - 1]) throw Error(dir + ": language code " + t.codes[i] + " appears twice");
    if (t.id(t.default_source) < 0)
        throw Error(cfg_path + ": src_lang " + json_excerpt(Json(t.default_source)) + " is not one of the model's languages");
    return t;
}

std::string clean_up_tokenization(std::string text) {
    static const std::pair<const char*, const char*> rules[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
        {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : rules) {
        const std::string f = from, t = to;
        std::string out;
        std::size_t at = 0;
        for (std::size_t hit; (hit = text.find(f, at)) != std::string::npos; at = hit + f.size())
            out.append(text, at, hit - at).append(t);
        out.append(text, at, std::string::npos);
        text = std::move(out);
    }
    return text;
}

}  // namespace tfm
