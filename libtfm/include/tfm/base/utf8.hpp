// Text lines as users feed them: invalid UTF-8 is replaced, never passed on or crashed on.
#pragma once

#include <string>
#include <string_view>

namespace tfm {

// The text with every invalid UTF-8 sequence (bad lead byte, truncated or overlong sequence,
// surrogate, code point past U+10FFFF) replaced by U+FFFD, NUL bytes by spaces, and a final
// '\r' (CRLF line ends) dropped. Returns how many replacements were made in *replaced.
std::string sanitize_utf8(std::string_view text, std::size_t* replaced = nullptr);

// Every occurrence of `from` (not empty) in s replaced by `to`, left to right, as Python's
// str.replace does.
void replace_all(std::string& s, std::string_view from, std::string_view to);

// Bytes of text a tokenizer reads for a sequence of at most `tokens` tokens: kTextBytesPerToken
// per token, far more than any real piece spells (a piece is one character or more), so that a
// line cut to it (cut_text) tokenizes to more tokens than fit when it is cut at all. Reading
// no further keeps the cost of a line linear in what is kept, whatever the line holds.
constexpr std::size_t kTextBytesPerToken = 64;
std::size_t text_budget(std::size_t tokens);
// The longest prefix of text of at most max_bytes bytes that ends between two UTF-8
// characters (a lead byte and its continuation bytes are never separated).
std::string_view cut_text(std::string_view text, std::size_t max_bytes);

}  // namespace tfm
