#include "tfm/base/markup.hpp"

#include "tfm/base/utf8.hpp"

namespace tfm {

std::string xml_escape(std::string_view raw) {
    const std::string s = sanitize_utf8(raw);
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) out += '?';
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

}  // namespace tfm
