#include <charconv>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/model/wordpiece.hpp"

namespace tfm {

namespace {


constexpr std::size_t kMaxAddedTokens = std::size_t(1) << 20, kMaxTokenBytes = 4096;

// A token as the tokenizer files give one: a string, or an object with "content" (and the
// flags of an AddedToken).
AddedToken token_of(const Json& v, const std::string& where) {
    AddedToken t;
    if (v.is_string()) {
        t.content = v.get<std::string>();
    } else if (v.is_object() && json_has(v, "content")) {
        t.content = json_string(v, "content", where);
        if (json_has(v, "special")) t.special = json_bool(v, "special", where);
        if (json_has(v, "normalized")) t.normalized = json_bool(v, "normalized", where);
    } else {
        throw Error(where + ": a token must be a string or an object with \"content\", got " + json_excerpt(v));
    }
    std::size_t bad = 0;
    sanitize_utf8(t.content, &bad);
    if (t.content.empty() || t.content.size() > kMaxTokenBytes || bad || t.content.find('\0') != std::string::npos)
        throw Error(where + ": a token must be 1 to " + std::to_string(kMaxTokenBytes) + " bytes of valid UTF-8, got " +
                    json_excerpt(v));
    return t;
}

// The special tokens' spellings and the additional special tokens of a tokenizer_config.json
// or special_tokens_map.json object.
void read_specials(const Json& j, const std::string& where, WordPieceOptions& opt) {
    const std::pair<const char*, std::string*> names[] = {{"unk_token", &opt.unk}, {"sep_token", &opt.sep},
                                                          {"pad_token", &opt.pad}, {"cls_token", &opt.cls},
                                                          {"mask_token", &opt.mask}};
    for (const auto& [key, field] : names)
        if (json_has(j, key)) *field = token_of(j[key], where + ": " + key).content;
    if (json_has(j, "additional_special_tokens")) {
        const Json& list = j["additional_special_tokens"];
        if (!list.is_array() || list.size() > kMaxAddedTokens)
            throw Error(where + ": additional_special_tokens must be a list of at most " + std::to_string(kMaxAddedTokens) +
                        " tokens");
        for (const Json& v : list) {
            AddedToken t = token_of(v, where + ": additional_special_tokens");
            t.special = true;
            t.normalized = false;
            opt.added.push_back(std::move(t));
        }
    }
}

}  // namespace

WordPieceOptions read_wordpiece_options(const std::string& dir, std::size_t vocab_size) {
    WordPieceOptions opt;
    const auto id_of = [&](const std::string& text, const std::string& where) {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto r = std::from_chars(text.data(), end, v);
        if (r.ec != std::errc() || r.ptr != end || v < 0 || std::uint64_t(v) >= vocab_size)
            throw Error(where + ": the id '" + text.substr(0, 32) + "' is not an integer from 0 to " +
                        std::to_string(vocab_size - 1) + " (config.json's vocab_size)");
        return v;
    };
    const std::string sm = dir + "/special_tokens_map.json";
    if (path_present(sm)) {
        const Json j = read_json_file(sm, std::size_t(4) << 20);
        if (!j.is_object()) throw Error(sm + ": not a JSON object");
        read_specials(j, sm, opt);
    }
    const std::string tc = dir + "/tokenizer_config.json";
    if (path_present(tc)) {
        const Json j = read_json_file(tc, std::size_t(4) << 20);
        if (!j.is_object()) throw Error(tc + ": not a JSON object");
        if (json_has(j, "do_lower_case")) opt.lower_case = json_bool(j, "do_lower_case", tc);
        if (json_has(j, "strip_accents") && !j["strip_accents"].is_null())
            opt.strip_accents = json_bool(j, "strip_accents", tc) ? 1 : 0;
        if (json_has(j, "tokenize_chinese_chars")) opt.chinese_chars = json_bool(j, "tokenize_chinese_chars", tc);
        if (json_has(j, "do_split_on_punc")) opt.split_on_punc = json_bool(j, "do_split_on_punc", tc);
        if (json_has(j, "never_split")) {
            const Json& list = j["never_split"];
            if (!list.is_array() || list.size() > kMaxAddedTokens)
                throw Error(tc + ": never_split must be a list of at most " + std::to_string(kMaxAddedTokens) + " words");
            for (const Json& v : list) opt.never_split.push_back(token_of(v, tc + ": never_split").content);
        }
        read_specials(j, tc, opt);
        if (json_has(j, "added_tokens_decoder")) {
            const Json& dec = j["added_tokens_decoder"];
            if (!dec.is_object() || dec.size() > kMaxAddedTokens)
                throw Error(tc + ": added_tokens_decoder must be an object of at most " + std::to_string(kMaxAddedTokens) +
                            " tokens");
            for (const auto& [key, v] : dec.items()) {
                AddedToken t = token_of(v, tc + ": added_tokens_decoder");
                t.id = id_of(key, tc + ": added_tokens_decoder");
                opt.added.push_back(std::move(t));
            }
        }
    }
    const std::string at = dir + "/added_tokens.json";
    if (path_present(at)) {
        const Json j = read_json_file(at, std::size_t(4) << 20);
        if (!j.is_object() || j.size() > kMaxAddedTokens)
            throw Error(at + ": must be an object of at most " + std::to_string(kMaxAddedTokens) + " token: id pairs");
        for (const auto& [key, v] : j.items()) {
            AddedToken t = token_of(Json(key), at);
            if (!v.is_number_integer()) throw Error(at + ": the id of '" + key.substr(0, 64) + "' is not an integer");
            t.id = id_of(std::to_string(v.get<std::int64_t>()), at);
            for (const AddedToken& s : opt.added)  // listed as special elsewhere: special here too
                if (s.special && s.content == t.content) t.special = true, t.normalized = false;
            opt.added.push_back(std::move(t));
        }
    }
    return opt;
}

}  // namespace tfm
