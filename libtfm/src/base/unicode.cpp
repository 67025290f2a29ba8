#include "tfm/base/unicode.hpp"

#include <utf8proc.h>

namespace tfm {

std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t* cp) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const unsigned char c = p[i];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    char32_t v = len == 4 ? (c & 0x07) : len == 3 ? (c & 0x0F) : (c & 0x1F);
    if (len == 0 || c >= 0xF5 || i + len > text.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if ((p[i + k] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (p[i + k] & 0x3F);
    }
    const char32_t shortest = len == 4 ? 0x10000 : len == 3 ? 0x800 : 0x80;  // no overlong forms
    if (v < shortest || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

std::u32string decode_utf8(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp = 0;
        const std::size_t len = utf8_sequence(text, i, &cp);
        out += len ? cp : char32_t(0xFFFD);
        i += len ? len : 1;
    }
    return out;
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += char(0xE0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    } else {
        out += char(0xF0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3F));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    }
}

std::string encode_utf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) append_utf8(out, c);
    return out;
}

bool py_isspace(char32_t c) {
    if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::u32string_view> py_split(std::u32string_view text) {
    std::vector<std::u32string_view> words;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (py_isspace(text[i])) {
            if (i > start) words.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    if (text.size() > start) words.push_back(text.substr(start));
    return words;
}

std::u32string_view py_rstrip(std::u32string_view text) {
    while (!text.empty() && py_isspace(text.back())) text.remove_suffix(1);
    return text;
}

namespace {

bool is_cased(char32_t c) {
    return utf8proc_islower(utf8proc_int32_t(c)) || utf8proc_isupper(utf8proc_int32_t(c)) ||
           utf8proc_category(utf8proc_int32_t(c)) == UTF8PROC_CATEGORY_LT;
}

bool is_case_ignorable(char32_t c) {
    switch (utf8proc_category(utf8proc_int32_t(c))) {
        case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_ME: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_SK:
            return true;
        default:  // Word_Break MidLetter, MidNumLet, Single_Quote
            return c == '\'' || c == '.' || c == ':' || c == 0xB7 || c == 0x387 || c == 0x5F4 || c == 0x2018 ||
                   c == 0x2019 || c == 0x2024 || c == 0x2027 || c == 0xFE13 || c == 0xFE52 || c == 0xFE55 ||
                   c == 0xFF07 || c == 0xFF0E || c == 0xFF1A;
    }
}

}  // namespace

std::u32string py_lower(std::u32string_view cps) {
    std::u32string out;
    out.reserve(cps.size());
    for (std::size_t i = 0; i < cps.size(); ++i) {
        const char32_t c = cps[i];
        if (c < 0x80) {
            out += c >= 'A' && c <= 'Z' ? c + 32 : c;
        } else if (c == 0x130) {
            out += U'i';
            out += char32_t(0x307);
        } else if (c == 0x3A3) {
            std::size_t j = i;
            while (j > 0 && is_case_ignorable(cps[j - 1])) --j;
            bool final = j > 0 && is_cased(cps[j - 1]);
            std::size_t k = i + 1;
            while (k < cps.size() && is_case_ignorable(cps[k])) ++k;
            if (final && k < cps.size()) final = !is_cased(cps[k]);
            out += char32_t(final ? 0x3C2 : 0x3C3);
        } else {
            out += char32_t(utf8proc_tolower(utf8proc_int32_t(c)));
        }
    }
    return out;
}

std::u32string lower_each_char(std::u32string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (c == 0x3A3) out += char32_t(0x3C3);  // alone, a capital sigma is never final
        else out += py_lower(std::u32string_view(&c, 1));
    }
    return out;
}

std::string python_lower(std::string_view utf8) { return encode_utf8(py_lower(decode_utf8(utf8))); }

}  // namespace tfm
