// Corpus BLEU as sacreBLEU computes it by default: 13a tokenisation (mteval-v13a), cased,
// one reference, n-grams 1..4 with clipped counts summed over the corpus, brevity penalty,
// and sacreBLEU's "exp" smoothing of zero precisions.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace tfm {

// The 13a tokenisation of one line, tokens joined by single spaces.
std::string tokenize_13a(std::string_view line);
// The words of a line as Python's str.split() gives them (what sacreBLEU splits on): runs of
// every character str.isspace() holds, the ASCII ones (\t \n \v \f \r, U+001C..U+001F,
// space) and U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
std::vector<std::string_view> split_words(std::string_view line);

struct BleuStats {
    std::array<std::size_t, 4> correct{}, total{};  // clipped matches and hypothesis n-grams
    std::size_t hyp_len = 0, ref_len = 0;
    void add(std::string_view hypothesis, std::string_view reference);
};

struct Bleu {
    double score = 0;                  // 0..100
    std::array<double, 4> precisions{};
    double brevity_penalty = 0, ratio = 0;
    std::size_t hyp_len = 0, ref_len = 0;
    std::string format() const;        // "BLEU = 34.21 65.2/41.3/28.1/19.8 (BP = 0.982 ratio = ...)"
};

Bleu corpus_bleu(const BleuStats& stats);
Bleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace tfm
