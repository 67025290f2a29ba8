#include "tfm/eval/tokenizers.hpp"

#include <utf8proc.h>

#include "tfm/base/error.hpp"
#include "tfm/base/unicode.hpp"

namespace tfm {

namespace {

bool digit(char32_t c) { return c >= '0' && c <= '9'; }

// mteval-v13a's punctuation class: {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ /
bool punct13a(char32_t c) {
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
           (c >= ':' && c <= '@') || c == '/';
}

std::u32string joined(std::u32string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::u32string_view w : py_split(text)) {
        if (!out.empty()) out += U' ';
        out.append(w);
    }
    return out;
}

std::u32string tokenize13a(std::u32string_view text) {
    std::u32string line(text);
    replace_all(line, U"<skipped>", U"");
    replace_all(line, U"-\n", U"");
    replace_all(line, U"\n", U" ");
    if (line.find(U'&') != std::u32string::npos) {
        replace_all(line, U"&quot;", U"\"");
        replace_all(line, U"&amp;", U"&");
        replace_all(line, U"&lt;", U"<");
        replace_all(line, U"&gt;", U">");
    }
    return joined(mteval_numbers(mteval_punct(U" " + line + U" ")));
}

utf8proc_category_t category(char32_t c) { return utf8proc_category(utf8proc_int32_t(c)); }

bool is_number(char32_t c) {  // \p{N}
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}

bool is_punctuation(char32_t c) {  // \p{P}
    const auto k = category(c);
    return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

bool is_symbol(char32_t c) {  // \p{S}
    const auto k = category(c);
    return k >= UTF8PROC_CATEGORY_SM && k <= UTF8PROC_CATEGORY_SO;
}

// mteval-v14's international rules: (\P{N})(\p{P}) -> "\1 \2 "; (\p{P})(\P{N}) -> " \1 \2";
// (\p{S}) -> " \1 ".
std::u32string tokenize_intl(std::u32string_view line) {
    std::u32string a;
    a.reserve(line.size() * 2);
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (i + 1 < line.size() && !is_number(line[i]) && is_punctuation(line[i + 1])) {
            a += line[i], a += U' ', a += line[i + 1], a += U' ';
            ++i;
        } else {
            a += line[i];
        }
    }
    std::u32string b;
    b.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (i + 1 < a.size() && is_punctuation(a[i]) && !is_number(a[i + 1])) {
            b += U' ', b += a[i], b += U' ', b += a[i + 1];
            ++i;
        } else {
            b += a[i];
        }
    }
    std::u32string c;
    c.reserve(b.size());
    for (char32_t x : b) {
        if (is_symbol(x)) c += U' ', c += x, c += U' ';
        else c += x;
    }
    return joined(c);
}

std::u32string tokenize_chars(std::u32string_view line) {
    std::u32string out;
    out.reserve(line.size() * 2);
    for (char32_t c : line) {
        if (py_isspace(c)) continue;
        if (!out.empty()) out += U' ';
        out += c;
    }
    return out;
}

}  // namespace

void replace_all(std::u32string& s, std::u32string_view from, std::u32string_view to) {
    for (std::size_t at = s.find(from); at != std::u32string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

std::u32string mteval_punct(std::u32string_view text) {
    std::u32string out;
    out.reserve(text.size() * 2);
    for (char32_t c : text) {
        if (punct13a(c)) out += U' ', out += c, out += U' ';
        else out += c;
    }
    return out;
}

std::u32string mteval_numbers(std::u32string_view a) {
    std::u32string b;
    b.reserve(a.size() + 16);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (i + 1 < a.size() && !digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
            b += a[i], b += U' ', b += a[i + 1], b += U' ';
            ++i;
        } else {
            b += a[i];
        }
    }
    std::u32string c;
    c.reserve(b.size() + 16);
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !digit(b[i + 1])) {
            c += U' ', c += b[i], c += U' ', c += b[i + 1];
            ++i;
        } else {
            c += b[i];
        }
    }
    std::u32string d;
    d.reserve(c.size() + 16);
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (i + 1 < c.size() && digit(c[i]) && c[i + 1] == '-') {
            d += c[i], d += U' ', d += U'-', d += U' ';
            ++i;
        } else {
            d += c[i];
        }
    }
    return d;
}

BleuTokenizer parse_bleu_tokenizer(std::string_view name) {
    if (name == "none") return BleuTokenizer::none;
    if (name == "13a") return BleuTokenizer::v13a;
    if (name == "intl") return BleuTokenizer::intl;
    if (name == "char") return BleuTokenizer::chars;
    throw Error("unknown tokenizer '" + std::string(name) + "' (none, 13a, intl, char)");
}

const char* tokenizer_name(BleuTokenizer t) {
    switch (t) {
        case BleuTokenizer::none: return "none";
        case BleuTokenizer::v13a: return "13a";
        case BleuTokenizer::intl: return "intl";
        case BleuTokenizer::chars: return "char";
    }
    return "?";
}

std::u32string tokenize(BleuTokenizer t, std::u32string_view line) {
    switch (t) {
        case BleuTokenizer::none: return joined(line);
        case BleuTokenizer::v13a: return tokenize13a(line);
        case BleuTokenizer::intl: return tokenize_intl(line);
        case BleuTokenizer::chars: return tokenize_chars(line);
    }
    return {};
}

std::string tokenize_13a(std::string_view line) { return encode_utf8(tokenize13a(decode_utf8(line))); }

}  // namespace tfm
