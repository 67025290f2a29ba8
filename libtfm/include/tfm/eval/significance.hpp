// Confidence intervals and paired significance tests as sacreBLEU computes them, on the
// per-segment statistics of a metric, drawing from numpy's generator (numpy_random.hpp) so a
// seed gives sacreBLEU's own resamples:
//   bootstrap  1000 resamples of the segments with replacement: the mean and the half-width
//              of the 95% interval (2.5% cut from each end);
//   paired-bs  the same resamples for the baseline and a system: p = (c + 1) / (n + 1) for the
//              c resamples whose |delta| minus the mean |delta| exceeds the real |delta|;
//   paired-ar  10000 trials that swap each segment's statistics between the two systems with
//              probability 1/2: p likewise from the trials' |delta|.
#pragma once

#include <cstdint>
#include <vector>

#include "tfm/eval/metric.hpp"

namespace tfm {

struct Interval {
    double mean = 0, ci = 0;  // the resamples' mean score and the 95% interval's half-width
};

// sacreBLEU's estimate_ci: sorted scores, bounds at n/40 from each end.
Interval estimate_ci(std::vector<double> scores);
// numpy's mean (pairwise summation) and sacreBLEU's p-value: (count(x > real) + 1) / (n + 1).
double numpy_mean(const std::vector<double>& x);
double p_value(const std::vector<double>& deltas, double real_difference);

// The metric's score on each of `samples` bootstrap resamples, for each statistics array in
// `systems` (the same resamples for all): scores[system][sample]. The resamples are those of
// numpy's default_rng(seed).choice(segments, size=(samples, segments)); statistics are
// summed in float32, as sacreBLEU sums them.
std::vector<std::vector<double>> bootstrap_scores(const Metric& metric, const std::vector<const std::vector<double>*>& systems,
                                                  std::size_t samples, std::uint64_t seed);

struct PairedResult {
    double score = 0;      // the system's score
    bool has_p = false;    // the baseline has no p-value
    double p_value = 0;    // against the baseline
    bool has_ci = false;   // paired-bs gives an interval
    Interval interval;
};

// Each system against the first (the baseline), on the same resamples / the same trials for
// every system, as sacreBLEU seeds each comparison alike: results[0] is the baseline's.
std::vector<PairedResult> paired_bootstrap(const Metric& metric, const std::vector<std::vector<double>>& systems,
                                           std::size_t samples, std::uint64_t seed);
std::vector<PairedResult> paired_randomization(const Metric& metric, const std::vector<std::vector<double>>& systems,
                                               std::size_t trials, std::uint64_t seed);

}  // namespace tfm
