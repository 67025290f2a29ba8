#include "tfm/eval/significance.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/eval/numpy_random.hpp"

namespace tfm {

namespace {

// numpy's pairwise_sum over a[0, n) (the inner loop of np.add.reduce).
double pairwise_sum(const double* a, std::size_t n) {
    if (n < 8) {
        double res = 0.;
        for (std::size_t i = 0; i < n; ++i) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        std::size_t i = 8;
        for (; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += a[i];
        return res;
    }
    std::size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

std::size_t segments_of(const Metric& metric, const std::vector<double>& stats) {
    if (stats.empty() || stats.size() % metric.width() != 0) throw Error("statistics of the wrong width");
    return stats.size() / metric.width();
}

}  // namespace

double numpy_mean(const std::vector<double>& x) {
    if (x.empty()) return 0.0;
    // np.add.reduce starts from the first element and adds the pairwise sum of the rest.
    return (x[0] + pairwise_sum(x.data() + 1, x.size() - 1)) / double(x.size());
}

Interval estimate_ci(std::vector<double> scores) {
    if (scores.empty()) return {};
    std::sort(scores.begin(), scores.end());
    const std::size_t n = scores.size(), lower = n / 40, upper = n - lower - 1;
    return {numpy_mean(scores), 0.5 * (scores[upper] - scores[lower])};
}

double p_value(const std::vector<double>& deltas, double real_difference) {
    std::size_t c = 0;
    for (double d : deltas) c += d > real_difference;
    return double(c + 1) / double(deltas.size() + 1);
}

std::vector<std::vector<double>> bootstrap_scores(const Metric& metric, const std::vector<const std::vector<double>*>& systems,
                                                  std::size_t samples, std::uint64_t seed) {
    const std::size_t w = metric.width();
    const std::size_t n = segments_of(metric, *systems.at(0));
    for (const auto* s : systems)
        if (s->size() != n * w) throw Error("systems with different numbers of segments");
    if (n > (std::size_t(1) << 32)) throw Error("bootstrap resampling takes at most 2^32 segments");
    NumpyRandom rng(seed);
    std::vector<std::vector<double>> scores(systems.size(), std::vector<double>(samples));
    std::vector<std::uint32_t> idx(n);
    std::vector<float> sum(w);
    std::vector<double> as_double(w);
    for (std::size_t s = 0; s < samples; ++s) {
        for (std::size_t i = 0; i < n; ++i) idx[i] = std::uint32_t(rng.below(n));
        for (std::size_t k = 0; k < systems.size(); ++k) {
            std::fill(sum.begin(), sum.end(), 0.0f);
            const double* stats = systems[k]->data();
            for (std::uint32_t i : idx)
                for (std::size_t c = 0; c < w; ++c) sum[c] += float(stats[std::size_t(i) * w + c]);
            std::copy(sum.begin(), sum.end(), as_double.begin());
            scores[k][s] = metric.score(as_double.data()).score;
        }
    }
    return scores;
}

std::vector<PairedResult> paired_bootstrap(const Metric& metric, const std::vector<std::vector<double>>& systems,
                                           std::size_t samples, std::uint64_t seed) {
    std::vector<const std::vector<double>*> all;
    for (const auto& s : systems) all.push_back(&s);
    const auto scores = bootstrap_scores(metric, all, samples, seed);
    std::vector<PairedResult> out(systems.size());
    for (std::size_t k = 0; k < systems.size(); ++k) {
        out[k].score = metric.score(sum_stats(systems[k], metric.width()).data()).score;
        out[k].has_ci = true;
        out[k].interval = estimate_ci(scores[k]);
        if (k == 0) continue;
        std::vector<double> diffs(samples);
        for (std::size_t s = 0; s < samples; ++s) diffs[s] = std::abs(scores[k][s] - scores[0][s]);
        const double mean = numpy_mean(diffs);
        for (double& d : diffs) d -= mean;
        out[k].has_p = true;
        out[k].p_value = p_value(diffs, std::abs(out[0].score - out[k].score));
    }
    return out;
}

std::vector<PairedResult> paired_randomization(const Metric& metric, const std::vector<std::vector<double>>& systems,
                                               std::size_t trials, std::uint64_t seed) {
    const std::size_t w = metric.width(), n = segments_of(metric, systems.at(0));
    std::vector<PairedResult> out(systems.size());
    for (std::size_t k = 0; k < systems.size(); ++k) {
        if (systems[k].size() != n * w) throw Error("systems with different numbers of segments");
        out[k].score = metric.score(sum_stats(systems[k], w).data()).score;
    }
    const std::vector<double>& baseline = systems[0];
    for (std::size_t k = 1; k < systems.size(); ++k) {
        const std::vector<double>& system = systems[k];
        NumpyRandom rng(seed);
        std::vector<double> deltas(trials), a_bl(w), a_sys(w), b_bl(w), b_sys(w), a(w), b(w);
        for (std::size_t t = 0; t < trials; ++t) {
            // Pseudo-system a takes the baseline's statistics where the coin says so and the
            // system's elsewhere, b the other way round (pos_sel @ bl + neg_sel @ sys).
            for (auto* v : {&a_bl, &a_sys, &b_bl, &b_sys}) std::fill(v->begin(), v->end(), 0.0);
            for (std::size_t i = 0; i < n; ++i) {
                const bool pos = rng.coin();
                const double* x = &baseline[i * w];
                const double* y = &system[i * w];
                double* to_bl = pos ? a_bl.data() : b_bl.data();
                double* to_sys = pos ? b_sys.data() : a_sys.data();
                for (std::size_t c = 0; c < w; ++c) to_bl[c] += x[c], to_sys[c] += y[c];
            }
            for (std::size_t c = 0; c < w; ++c) a[c] = a_bl[c] + a_sys[c], b[c] = b_bl[c] + b_sys[c];
            deltas[t] = std::abs(metric.score(a.data()).score - metric.score(b.data()).score);
        }
        out[k].has_p = true;
        out[k].p_value = p_value(deltas, std::abs(out[0].score - out[k].score));
    }
    return out;
}

}  // namespace tfm
