// sacreBLEU's BLEU tokenizers, on code points: each returns the tokens of one line.
//   none  the words between whitespace (str.split())
//   13a   mteval-v13a: punctuation apart, '.' and ',' apart unless between digits, '-' after
//         a digit apart, &quot; &amp; &lt; &gt; unescaped (sacreBLEU's default)
//   intl  mteval-v14 international: Unicode punctuation apart unless after (before) a
//         number, Unicode symbols apart
//   char  every character but whitespace a token
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tfm {

enum class BleuTokenizer { none, v13a, intl, chars };

// "none", "13a", "intl", "char"; anything else is an error that lists them.
BleuTokenizer parse_bleu_tokenizer(std::string_view name);
const char* tokenizer_name(BleuTokenizer t);

// The line's tokens, joined by single spaces (no leading or trailing space).
std::u32string tokenize(BleuTokenizer t, std::u32string_view line);

// The passes 13a and TER's normalisation share, each one left-to-right pass of
// non-overlapping matches as re.sub makes it (no whitespace collapsed):
// mteval_punct: each of {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ / gets a space on each side;
// mteval_numbers: ([^0-9])([.,]) -> "\1 \2 ", then ([.,])([^0-9]) -> " \1 \2", then
// ([0-9])(-) -> "\1 \2 ".
std::u32string mteval_punct(std::u32string_view text);
std::u32string mteval_numbers(std::u32string_view text);
// Every occurrence of `from` replaced by `to`, left to right (str.replace).
void replace_all(std::u32string& s, std::u32string_view from, std::u32string_view to);

// The 13a tokenisation of a UTF-8 line, tokens joined by single spaces.
std::string tokenize_13a(std::string_view line);

}  // namespace tfm
