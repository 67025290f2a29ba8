// Text as Python's str sees it: code points, and the str methods that sacreBLEU and Hugging
// Face's tokenizers apply (isspace, split, rstrip, lower), so that tfm splits and folds text
// exactly where they do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tfm {

// The length (1..4) of the valid UTF-8 sequence starting at text[i], its code point in *cp;
// 0 when the bytes there do not start one (bad lead byte, truncated or overlong sequence,
// surrogate, past U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t* cp);

// The code points of UTF-8 text. Each byte that does not start a valid sequence (bad lead
// byte, truncated or overlong sequence, surrogate, past U+10FFFF) becomes one U+FFFD, as
// sanitize_utf8 replaces it; NUL stays a code point.
std::u32string decode_utf8(std::string_view text);
std::string encode_utf8(std::u32string_view text);
void append_utf8(std::string& out, char32_t c);

// str.isspace(): \t \n \v \f \r, U+001C..U+001F, space, U+0085, U+00A0, U+1680,
// U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool py_isspace(char32_t c);
// str.split() with no argument: the runs between whitespace, none empty.
std::vector<std::u32string_view> py_split(std::u32string_view text);
// str.rstrip() with no argument.
std::u32string_view py_rstrip(std::u32string_view text);
// str.lower(): each code point's lower case, but U+0130 becomes "i" + U+0307 (its full
// mapping) and capital sigma becomes final sigma where the Final_Sigma context holds (after a
// cased letter, not before one, case-ignorables skipped both ways), as CPython decides.
std::u32string py_lower(std::u32string_view text);
std::string python_lower(std::string_view utf8);
// Each character's str.lower() on its own, as HF's tokenizers lower-case: no final sigma.
std::u32string lower_each_char(std::u32string_view text);

}  // namespace tfm
