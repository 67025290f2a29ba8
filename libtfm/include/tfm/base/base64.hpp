// Base64 (RFC 4648, with '=' padding): binary data inside text files (PNG in SVG, arrays in
// tfm-view's pages).
#pragma once

#include <string>
#include <string_view>

namespace tfm {

std::string base64(std::string_view bytes);

}  // namespace tfm
