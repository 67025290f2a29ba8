#include "tfm/nn/loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

namespace {

constexpr std::size_t kRows = 64;   // rows per task; the bias gradient is summed per task

// z = x + b (a copy of x when b is null); returns max(z) and adds sum(z) to *sum.
float max_and_sum(float* z, const float* x, const float* b, std::size_t n, double* sum) {
    float mx[kSumLanes], s[kSumLanes] = {};
    std::fill(mx, mx + kSumLanes, -std::numeric_limits<float>::infinity());
    std::size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes)
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            const float v = b ? x[i + l] + b[i + l] : x[i + l];
            z[i + l] = v;
            mx[l] = v > mx[l] ? v : mx[l];
            s[l] += v;
        }
    for (std::size_t l = 0; i < n; ++i, ++l) {
        const float v = b ? x[i] + b[i] : x[i];
        z[i] = v;
        mx[l] = v > mx[l] ? v : mx[l];
        s[l] += v;
    }
    float m = mx[0];
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        m = mx[l] > m ? mx[l] : m;
        *sum += double(s[l]);
    }
    return m;
}

}  // namespace

LossStats smoothed_cross_entropy(ConstMat logits, const std::vector<std::int64_t>& labels, std::int64_t pad_id,
                                 float epsilon, float* dlogits, const float* bias, float* dbias) {
    const std::size_t n = logits.rows, v = logits.cols;
    if (labels.size() != n) throw Error("cross-entropy: " + std::to_string(labels.size()) + " labels for " +
                                        std::to_string(n) + " rows");
    for (std::int64_t y : labels)
        if (y != pad_id && (y < 0 || std::size_t(y) >= v))
            throw Error("label " + std::to_string(y) + " is outside the vocabulary of " + std::to_string(v));
    const std::size_t tasks = (n + kRows - 1) / kRows;
    std::vector<double> row_nll(n, 0.0), row_smoothed(n, 0.0);
    std::vector<float> partial(dlogits && dbias ? tasks * v : 0, 0.0f);  // per task: its rows' column sums
    const float off = epsilon / float(v), hit = 1.0f - epsilon;
    parallel_for(tasks, [&](std::size_t t) {
        thread_local std::vector<float> z;
        z.resize(v);
        float* colsum = partial.empty() ? nullptr : partial.data() + t * v;
        for (std::size_t i = t * kRows; i < std::min(n, (t + 1) * kRows); ++i) {
            float* g = dlogits ? dlogits + i * v : nullptr;
            if (labels[i] == pad_id) {
                if (g) std::fill(g, g + v, 0.0f);
                continue;
            }
            const std::size_t y = std::size_t(labels[i]);
            double sum_z = 0;
            const float mx = max_and_sum(z.data(), logits.data + i * logits.ld, bias, v, &sum_z);
            const double z_y = double(z[y]);
            float* e = g ? g : z.data();  // exp(z - max), in place of the gradient when there is one
            const double lse = double(mx) + std::log(double(exp_shifted(e, z.data(), v, mx)));
            const double logp_y = z_y - lse, sum_logp = sum_z - double(v) * lse;
            row_nll[i] = -logp_y;
            row_smoothed[i] = -((1.0 - epsilon) * logp_y + epsilon / double(v) * sum_logp);
            if (!g) continue;
            const float inv = float(std::exp(double(mx) - lse));  // 1 / sum exp(z - max)
            for (std::size_t j = 0; j < v; ++j) g[j] = g[j] * inv - off;
            g[y] -= hit;
            if (colsum)
                for (std::size_t j = 0; j < v; ++j) colsum[j] += g[j];
        }
    });
    if (!partial.empty()) {  // column sums of the tasks, added in task order: columns in parallel
        constexpr std::size_t kCols = 1024;
        parallel_for((v + kCols - 1) / kCols, [&](std::size_t c) {
            for (std::size_t t = 0; t < tasks; ++t)
                for (std::size_t j = c * kCols; j < std::min(v, (c + 1) * kCols); ++j) dbias[j] += partial[t * v + j];
        });
    }
    LossStats st;
    for (std::size_t i = 0; i < n; ++i) {
        if (labels[i] == pad_id) continue;
        st.nll += row_nll[i];
        st.smoothed += row_smoothed[i];
        ++st.tokens;
    }
    return st;
}

}  // namespace tfm
