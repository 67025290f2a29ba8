#include "tfm/base/utf8.hpp"

#include <cstdint>

#include "tfm/base/checked.hpp"
#include "tfm/base/unicode.hpp"

namespace tfm {

std::string sanitize_utf8(std::string_view text, std::size_t* replaced) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    std::string out;
    out.reserve(text.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp = 0;
        const std::size_t len = utf8_sequence(text, i, &cp);
        if (len && cp != 0) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            out += len ? " " : "\xEF\xBF\xBD";  // NUL becomes a space, a bad byte U+FFFD
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
