// TER (translation edit rate) as sacreBLEU computes it, TERCOM's behaviour: the fewest word
// edits (insertions, deletions, substitutions, and shifts of a run of words) that turn the
// hypothesis into a reference, divided by the reference's length. The edit distance is a
// beam-limited Levenshtein (beam 25 around the diagonal); shifts are searched greedily
// (runs of at most 10 words, at most 50 positions away, at most 1000 candidates a segment).
//
// Statistics per segment: [edits against the closest reference, average reference length].
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tfm/eval/metric.hpp"

namespace tfm {

struct TerOptions {
    bool normalized = false;      // mteval-like tokenization (and, with asian_support, CJK apart)
    bool no_punct = false;        // remove . , ? : ; ! " ( )
    bool asian_support = false;   // CJK characters and Asian punctuation treated as above
    bool case_sensitive = false;  // TERCOM lower-cases by default
};

// TERCOM's tokenization (sacreBLEU's TercomTokenizer): the words, joined by single spaces.
std::u32string ter_tokenize(std::u32string_view line, const TerOptions& opt);

// (edits, reference length) of hypothesis words against reference words (word ids).
std::pair<std::int64_t, std::size_t> translation_edit_rate(const std::u32string& hyp, const std::u32string& ref);

// The longest segment TER takes: (hypothesis words + 1) * (reference words + 1) cells of its
// edit-distance matrix, so that its memory and time per segment stay bounded.
constexpr std::size_t kTerMaxCells = std::size_t(1) << 24;

class Ter : public Metric {
public:
    explicit Ter(TerOptions opt = {}) : opt_(opt) {}
    std::string name() const override { return "TER"; }
    std::size_t width() const override { return 2; }
    void segment(std::string_view hypothesis, const std::vector<std::string_view>& references,
                 double* stats) const override;
    Score score(const double* stats) const override;
    SignatureFields settings() const override;

private:
    TerOptions opt_;
};

}  // namespace tfm
