#include "tfm/model/wordpiece.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "tfm/base/error.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/io.hpp"

namespace tfm {

namespace {

// The code points of valid UTF-8 (sanitize_utf8's output).
std::vector<std::int32_t> code_points(std::string_view s) {
    std::vector<std::int32_t> out;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t at = 0, n = utf8proc_ssize_t(s.size());
    while (at < n) {
        utf8proc_int32_t c = 0;
        const utf8proc_ssize_t len = utf8proc_iterate(p + at, n - at, &c);
        if (len <= 0) {  // cannot happen after sanitize_utf8; skip a byte rather than loop
            ++at;
            continue;
        }
        out.push_back(c);
        at += len;
    }
    return out;
}

void append(std::string& s, std::int32_t c) {
    utf8proc_uint8_t buf[4];
    const utf8proc_ssize_t n = utf8proc_encode_char(c, buf);
    s.append(reinterpret_cast<const char*>(buf), std::size_t(n));
}

// utf8proc_map with options (NFC, NFD) on valid UTF-8.
std::string mapped(const std::string& s, int options) {
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), utf8proc_ssize_t(s.size()),
                                            &out, utf8proc_option_t(options | UTF8PROC_STABLE));
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> hold(out, &std::free);
    if (n < 0) throw Error(std::string("tokenizer: ") + utf8proc_errmsg(n));
    return std::string(reinterpret_cast<const char*>(out), std::size_t(n));
}

// The parts of s between separators (empty ones included).
std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < s.size();) {
        std::size_t end = s.find(sep, at);
        if (end == std::string::npos) end = s.size();
        out.push_back(s.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// HF's _is_whitespace (space, tab, newline, return, Zs), and the line and paragraph
// separators (Zl, Zp) that its whitespace_tokenize's str.split() splits on after cleaning.
bool is_whitespace(std::int32_t c) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return true;
    const auto cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

// HF's _is_control: every "C*" category (Cc, Cf, Cn unassigned, Co private use, Cs) but
// tab, newline and return.
bool is_control(std::int32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    switch (utf8proc_category(c)) {
        case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_CO:
        case UTF8PROC_CATEGORY_CS:
            return true;
        default:
            return false;
    }
}

bool is_punctuation(std::int32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    switch (utf8proc_category(c)) {
        case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS: case UTF8PROC_CATEGORY_PE:
        case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF: case UTF8PROC_CATEGORY_PO:
            return true;
        default:
            return false;
    }
}

bool is_cjk(std::int32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

}  // namespace

WordPiece::WordPiece(std::vector<std::string> pieces, const WordPieceOptions& opt, const std::string& origin)
    : pieces_(std::move(pieces)), opt_(opt) {
    for (std::size_t i = 0; i < pieces_.size(); ++i) ids_[pieces_[i]] = std::int64_t(i);  // the last wins, as in HF's load_vocab
    auto special = [&](const std::string& name) {
        const std::int64_t v = id(name);
        if (v < 0) throw Error(origin + ": no " + name + " piece");
        return v;
    };
    cls_ = special(opt_.cls);
    sep_ = special(opt_.sep);
    unk_ = special(opt_.unk);
    pad_ = special(opt_.pad);
    // HF's order of all_special_tokens: unk, sep, pad, cls, mask, then the additional ones.
    std::vector<AddedToken> all;
    for (const std::string* name : {&opt_.unk, &opt_.sep, &opt_.pad, &opt_.cls, &opt_.mask})
        if (id(*name) >= 0) all.push_back({*name, id(*name), true, false});
    for (AddedToken t : opt_.added) {
        if (t.content.empty()) throw Error(origin + ": an added token is empty");
        if (!t.special && t.normalized && opt_.lower_case) t.content = python_lower(t.content);
        if (t.id < 0) t.id = id(t.content);
        if (t.id < 0)
            throw Error(origin + ": the added token '" + t.content +
                        "' has no id (it is neither in vocab.txt nor in added_tokens.json or added_tokens_decoder)");
        all.push_back(std::move(t));
    }
    for (AddedToken& t : all) {
        auto [it, fresh] = added_ids_.emplace(t.content, t.id);
        if (!fresh) {  // given twice: the last word on it wins, as a dict update does
            it->second = t.id;
            for (AddedToken& a : added_)
                if (a.content == t.content) a = t;
            continue;
        }
        added_.push_back(t);
    }
    for (const AddedToken& t : added_)
        if (t.special) protected_.push_back(t.content);
    for (const AddedToken& t : added_)
        if (!t.special && t.normalized) protected_.push_back(t.content);
    never_split_.insert(opt_.never_split.begin(), opt_.never_split.end());
}

std::int64_t WordPiece::max_id() const {
    std::int64_t m = std::int64_t(pieces_.size()) - 1;
    for (const AddedToken& t : added_) m = std::max(m, t.id);
    return m;
}

std::string WordPiece::lower_outside_protected(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::string* hit = nullptr;
        for (const std::string& p : protected_)  // the first listed that matches here, as a regex alternation
            if (text.compare(i, p.size(), p) == 0) {
                hit = &p;
                break;
            }
        if (hit) {
            out += *hit;
            i += hit->size();
            continue;
        }
        char32_t c = 0;
        const std::size_t len = std::max<std::size_t>(1, utf8_sequence(text, i, &c));
        if (c == '\n') out += '\n';  // '.' does not match a newline: HF's pattern leaves it
        else out += encode_utf8(lower_each_char(std::u32string_view(&c, 1)));
        i += len;
    }
    return out;
}

WordPiece WordPiece::load(const std::string& path, const WordPieceOptions& opt) {
    const std::string text = read_regular_file(path, std::size_t(64) << 20);
    std::vector<std::string> pieces;
    for (std::string& line : split(text, '\n')) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::size_t bad = 0;
        std::string clean = sanitize_utf8(line, &bad);
        if (bad) throw Error(path + ": line " + std::to_string(pieces.size() + 1) + " is not valid UTF-8");
        pieces.push_back(std::move(clean));
    }
    if (pieces.empty()) throw Error(path + ": no pieces");
    return WordPiece(std::move(pieces), opt, path);
}

std::int64_t WordPiece::id(const std::string& piece) const {
    auto it = ids_.find(piece);
    return it == ids_.end() ? -1 : it->second;
}

const std::string& WordPiece::piece(std::int64_t id) const {
    static const std::string none = "[?]";
    return id >= 0 && std::size_t(id) < pieces_.size() ? pieces_[std::size_t(id)] : none;
}

std::vector<std::string> WordPiece::words(std::string_view text) const {
    // Clean: drop NUL, U+FFFD and control characters; whitespace becomes a space; CJK apart.
    std::string clean;
    for (std::int32_t c : code_points(sanitize_utf8(text))) {
        if (c == 0 || c == 0xFFFD || is_control(c)) continue;
        if (is_whitespace(c)) {
            clean += ' ';
        } else if (opt_.chinese_chars && is_cjk(c)) {
            clean += ' ';
            append(clean, c);
            clean += ' ';
        } else {
            append(clean, c);
        }
    }
    clean = mapped(clean, UTF8PROC_COMPOSE);
    const bool strip = opt_.strip_accents < 0 ? opt_.lower_case : opt_.strip_accents == 1;
    std::vector<std::string> out;
    for (std::string& token : split(clean, ' ')) {
        if (token.empty()) continue;
        if (never_split_.count(token)) {  // kept whole: no lower case, no accents stripped, no split
            out.push_back(std::move(token));
            continue;
        }
        if (opt_.lower_case) token = encode_utf8(lower_each_char(decode_utf8(token)));
        if (strip) {
            std::string kept;
            for (std::int32_t c : code_points(mapped(token, UTF8PROC_DECOMPOSE)))
                if (utf8proc_category(c) != UTF8PROC_CATEGORY_MN) append(kept, c);
            token = std::move(kept);
        }
        std::string word;
        for (std::int32_t c : code_points(token)) {
            if (opt_.split_on_punc && is_punctuation(c)) {
                if (!word.empty()) out.push_back(std::move(word));
                word.clear();
                std::string p;
                append(p, c);
                out.push_back(std::move(p));
            } else {
                append(word, c);
            }
        }
        if (!word.empty()) out.push_back(std::move(word));
    }
    return out;
}

std::vector<std::int64_t> WordPiece::encode(std::string_view raw) const {
    // As HF's tokenize(): lower-case first (the protected tokens as spelt), then split the added
    // tokens out (the earliest, the longest there), each one id; the text between them is
    // tokenized on its own.
    const std::string clean = sanitize_utf8(raw);
    const std::string lowered = opt_.lower_case ? lower_outside_protected(clean) : std::string();
    const std::string_view text = opt_.lower_case ? std::string_view(lowered) : std::string_view(clean);
    std::vector<std::int64_t> out;
    std::size_t from = 0;
    for (;;) {
        std::size_t at = std::string_view::npos, len = 0;
        std::int64_t found = -1;
        for (const AddedToken& t : added_) {
            const std::size_t p = text.find(t.content, from);
            if (p < at || (p == at && p != std::string_view::npos && t.content.size() > len))
                at = p, len = t.content.size(), found = t.id;
        }
        const std::vector<std::int64_t> part = encode_words(text.substr(from, at == std::string_view::npos ? at : at - from));
        out.insert(out.end(), part.begin(), part.end());
        if (at == std::string_view::npos) return out;
        out.push_back(found);
        from = at + len;
    }
}

std::vector<std::int64_t> WordPiece::encode_words(std::string_view text) const {
    std::vector<std::int64_t> out;
    for (const std::string& word : words(text)) {
        if (never_split_.count(word)) {  // looked up as it is: an added token's id, a piece's, or [UNK]
            const auto a = added_ids_.find(word);
            out.push_back(a != added_ids_.end() ? a->second : id(word) >= 0 ? id(word) : unk_);
            continue;
        }
        // Byte offsets of the word's characters: pieces end on character boundaries.
        std::vector<std::size_t> bounds{0};
        const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(word.data());
        for (std::size_t at = 0; at < word.size();) {
            utf8proc_int32_t c = 0;
            const utf8proc_ssize_t len = utf8proc_iterate(p + at, utf8proc_ssize_t(word.size() - at), &c);
            at += std::size_t(len > 0 ? len : 1);
            bounds.push_back(at);
        }
        if (bounds.size() - 1 > opt_.max_word_chars) {
            out.push_back(unk_);
            continue;
        }
        std::vector<std::int64_t> pieces;
        bool bad = false;
        for (std::size_t start = 0; start + 1 < bounds.size() && !bad;) {
            std::size_t end = bounds.size() - 1;
            std::int64_t found = -1;
            for (; end > start; --end) {
                std::string sub = (start ? "##" : "") + word.substr(bounds[start], bounds[end] - bounds[start]);
                if ((found = id(sub)) >= 0) break;
            }
            if (found < 0) bad = true;
            else pieces.push_back(found), start = end;
        }
        if (bad) out.push_back(unk_);
        else out.insert(out.end(), pieces.begin(), pieces.end());
    }
    return out;
}

}  // namespace tfm
