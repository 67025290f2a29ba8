// Counted n-grams of a sequence of symbols (code points, or the ids of words), shared by BLEU
// and chrF. An n-gram is packed into one 128-bit key when its n symbols fit (n x bits per
// symbol <= 128: every BLEU n-gram, chrF's 6 characters of 21 bits), else kept as a view into
// the sequence; either way counts are exact. Counts live in an open-addressing hash table, so
// counting and matching cost time linear in the n-grams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfm {

__extension__ typedef unsigned __int128 NgramKey;  // GCC and Clang on 64-bit targets

class NgramCounts {
public:
    // How many n-grams were counted (the sum of the counts); none.
    std::size_t total() const { return total_; }
    bool empty() const { return total_ == 0; }

private:
    friend NgramCounts count_ngrams(std::u32string_view, std::size_t, unsigned);
    friend std::size_t clipped_matches(const NgramCounts&, const NgramCounts&);
    friend NgramCounts max_counts(const NgramCounts&, const NgramCounts&);
    void reserve(std::size_t distinct);
    std::uint32_t& slot(NgramKey key);  // the key's count, 0 in a fresh slot
    std::uint32_t count(NgramKey key) const;
    std::vector<NgramKey> keys_;
    std::vector<std::uint32_t> counts_;  // 0: an empty slot
    std::size_t distinct_ = 0, total_ = 0;
    std::unordered_map<std::u32string_view, std::uint32_t> views_;  // n-grams that do not pack
};

// Bits per symbol: a code point's, a word id's (WordIds).
inline constexpr unsigned kCodePointBits = 21, kWordIdBits = 32;

// The n-grams of seq (n >= 1) with their counts; seq must outlive the result, and every symbol
// must be below 2^bits. Counts compared with each other must come from the same n and bits.
NgramCounts count_ngrams(std::u32string_view seq, std::size_t n, unsigned bits);
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
    std::size_t size() const { return ids_.size(); }

private:
    std::unordered_map<std::u32string_view, char32_t> ids_;
};

// The tokens of a line its tokenizer joined by single spaces.
std::vector<std::u32string_view> split_spaces(std::u32string_view joined);

}  // namespace tfm
