// Text lines as users feed them: invalid UTF-8 is replaced, never passed on or crashed on.
#pragma once

#include <string>
#include <string_view>

namespace tfm {

// The text with every invalid UTF-8 sequence (bad lead byte, truncated or overlong sequence,
// surrogate, code point past U+10FFFF) replaced by U+FFFD, NUL bytes by spaces, and a final
// '\r' (CRLF line ends) dropped. Returns how many replacements were made in *replaced.
std::string sanitize_utf8(std::string_view text, std::size_t* replaced = nullptr);

}  // namespace tfm
