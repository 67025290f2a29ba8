// BLEU as sacreBLEU computes it: a tokenizer (13a by default), optional lower case, clipped
// n-gram matches (1..4) against the most each reference allows, the closest reference length
// for the brevity penalty, and a smoothing of zero precisions ("exp" by default).
//
// Statistics per segment: [hyp_len, ref_len, correct[4], total[4]].
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tfm/eval/metric.hpp"
#include "tfm/eval/tokenizers.hpp"

namespace tfm {

enum class BleuSmooth { none, floor, add_k, exp };

struct BleuOptions {
    BleuTokenizer tokenizer = BleuTokenizer::v13a;
    bool lowercase = false;
    BleuSmooth smooth = BleuSmooth::exp;
    double smooth_value = -1;      // < 0: the method's default (floor 0.1, add-k 1)
    bool effective_order = false;  // average over the orders the hypothesis has
};

// "none", "floor", "add-k", "exp"; anything else is an error that lists them.
BleuSmooth parse_bleu_smooth(std::string_view name);

struct BleuScore {
    double score = 0;  // 0..100
    std::array<double, 4> precisions{};
    double brevity_penalty = 0, ratio = 0;
    std::size_t hyp_len = 0, ref_len = 0;
    // "34.2/41.3/28.1/19.8 (BP = 0.982 ratio = 0.982 hyp_len = 1234 ref_len = 1256)"
    std::string verbose() const;
};

// sacreBLEU's compute_bleu on summed statistics.
BleuScore compute_bleu(const double* stats, BleuSmooth smooth, double smooth_value, bool effective_order);

class Bleu : public Metric {
public:
    explicit Bleu(BleuOptions opt = {});
    std::string name() const override { return "BLEU"; }
    std::size_t width() const override { return 10; }
    void segment(std::string_view hypothesis, const std::vector<std::string_view>& references,
                 double* stats) const override;
    Score score(const double* stats) const override;
    Score sentence(const double* stats) const override;
    SignatureFields settings() const override { return settings(opt_.effective_order); }
    SignatureFields sentence_settings() const override { return settings(true); }
    BleuScore details(const double* stats, bool effective_order) const;

private:
    SignatureFields settings(bool effective_order) const;
    BleuOptions opt_;
};

// Corpus BLEU of hypotheses against one reference each, with the default options.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace tfm
