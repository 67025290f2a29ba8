#include "tfm/base/base64.hpp"

#include <cstdint>

namespace tfm {

std::string base64(std::string_view bytes) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = unsigned(std::uint8_t(bytes[i])) << 16 | unsigned(std::uint8_t(bytes[i + 1])) << 8 |
                           unsigned(std::uint8_t(bytes[i + 2]));
        out += t[v >> 18], out += t[(v >> 12) & 63], out += t[(v >> 6) & 63], out += t[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = unsigned(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= unsigned(std::uint8_t(bytes[i + 1])) << 8;
        out += t[v >> 18], out += t[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? t[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

}  // namespace tfm
