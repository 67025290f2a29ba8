// chrF and chrF++ as sacreBLEU computes them: character n-grams (1..6, whitespace removed)
// and, for chrF++, word n-grams (1..2, punctuation split off the words' ends), matched against
// the reference that gives the segment its best F-score; the corpus score is the F-beta of the
// precisions and recalls averaged over the orders (or eps-smoothed, as chrF++.py does).
//
// Statistics per segment: [n_hyp, n_ref, n_match] per order, character orders first.
#pragma once

#include "tfm/eval/metric.hpp"

namespace tfm {

struct ChrfOptions {
    int char_order = 6;
    int word_order = 0;  // 2: chrF++
    int beta = 2;
    bool lowercase = false;
    bool whitespace = false;     // keep whitespace in the character n-grams
    bool eps_smoothing = false;  // chrF++.py's, NLTK's and Moses' smoothing instead of the effective order
};

class Chrf : public Metric {
public:
    explicit Chrf(ChrfOptions opt = {});
    std::string name() const override;
    std::size_t width() const override { return 3 * std::size_t(opt_.char_order + opt_.word_order); }
    void segment(std::string_view hypothesis, const std::vector<std::string_view>& references,
                 double* stats) const override;
    Score score(const double* stats) const override;
    SignatureFields settings() const override;

private:
    double f_score(const double* stats) const;
    ChrfOptions opt_;
};

}  // namespace tfm
