#include "tfm/base/utf8.hpp"

#include <cstdint>

#include "tfm/base/checked.hpp"

namespace tfm {

std::string sanitize_utf8(std::string_view text, std::size_t* replaced) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    std::string out;
    out.reserve(text.size());
    std::size_t bad = 0;
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c == 0) {
            out += ' ';
            ++bad;
            ++i;
            continue;
        }
        if (c < 0x80) {
            out += char(c);
            ++i;
            continue;
        }
        std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        char32_t cp = len == 4 ? (c & 0x07) : len == 3 ? (c & 0x0F) : (c & 0x1F);
        bool ok = len != 0 && c < 0xF5 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (ok) {
            const char32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
            ok = cp >= min[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (ok) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++bad;
            ++i;  // resynchronise on the next byte
        }
    }
    if (replaced) *replaced = bad;
    return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    if (from.empty()) return;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

std::size_t text_budget(std::size_t tokens) {
    std::size_t bytes = 0;
    return checked::mul(tokens, kTextBytesPerToken, &bytes) ? bytes : SIZE_MAX;
}

std::string_view cut_text(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t n = max_bytes;
    // Back over continuation bytes (10xxxxxx) to the start of the character that would be split.
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80 && max_bytes - n < 4) --n;
    return text.substr(0, n);
}

}  // namespace tfm
