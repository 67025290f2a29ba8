// Counted n-grams of a sequence of symbols (code points, or the ids of words), shared by BLEU
// and chrF: each n-gram is a view into the sequence, the list sorted by n-gram.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfm {

using NgramCounts = std::vector<std::pair<std::u32string_view, std::uint32_t>>;

// The n-grams of seq (n >= 1), each with its count, sorted. seq must outlive the result.
NgramCounts count_ngrams(std::u32string_view seq, std::size_t n);
// How many n-grams the counts hold (the sum of the counts).
std::size_t ngram_total(const NgramCounts& counts);
// Sum over hyp's n-grams of min(hyp count, ref count): the clipped matches.
std::size_t clipped_matches(const NgramCounts& hyp, const NgramCounts& ref);
// Every n-gram of a or b with the larger of its two counts (several references).
NgramCounts max_counts(const NgramCounts& a, const NgramCounts& b);

// Words as symbols: the same word (the same code points) always gets the same id within one
// vocabulary, so that word n-grams compare as sequences of ids.
class WordIds {
public:
    // The ids of words; the words must outlive this object.
    std::u32string ids(const std::vector<std::u32string_view>& words);

private:
    std::unordered_map<std::u32string_view, char32_t> ids_;
};

// The tokens of a line its tokenizer joined by single spaces.
std::vector<std::u32string_view> split_spaces(std::u32string_view joined);

}  // namespace tfm
