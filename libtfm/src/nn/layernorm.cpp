#include "tfm/nn/layernorm.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

LayerNorm identity_layernorm(std::size_t d, float eps) {
    return {xt::ones<float>({d}), xt::zeros<float>({d}), eps};
}

namespace {

// Row statistics in float with independent lane sums (fast_math.hpp's kSumLanes): the mean
// and 1/sqrt(var + eps), two-pass.

struct RowStats {
    float mean, inv;
};

RowStats row_stats(const float* x, std::size_t d, float eps) {
    float s[kSumLanes] = {}, q[kSumLanes] = {};
    std::size_t j = 0;
    for (; j + kSumLanes <= d; j += kSumLanes)
        for (std::size_t l = 0; l < kSumLanes; ++l) s[l] += x[j + l];
    for (std::size_t l = 0; j < d; ++j, ++l) s[l] += x[j];
    float sum = 0;
    for (float v : s) sum += v;
    const float mean = sum / float(d);
    for (j = 0; j + kSumLanes <= d; j += kSumLanes)
        for (std::size_t l = 0; l < kSumLanes; ++l) q[l] += (x[j + l] - mean) * (x[j + l] - mean);
    for (std::size_t l = 0; j < d; ++j, ++l) q[l] += (x[j] - mean) * (x[j] - mean);
    float sq = 0;
    for (float v : q) sq += v;
    return {mean, float(1.0 / std::sqrt(double(sq) / double(d) + double(eps)))};
}

constexpr std::size_t kRowsPerTask = 64;

// One row of the backward pass: xhat = (x - mean) inv, gdy = gamma dy, and the row's share of
// dgamma (dy xhat) and dbeta (dy). Every pointer names its own memory (restrict: it vectorises).
void normalised_and_sums(float* __restrict xhat, float* __restrict gdy, float* __restrict dg, float* __restrict db,
                         const float* __restrict x, const float* __restrict dy, const float* __restrict g,
                         std::size_t d, RowStats st) {
    for (std::size_t j = 0; j < d; ++j) {
        xhat[j] = (x[j] - st.mean) * st.inv;
        gdy[j] = g[j] * dy[j];
        dg[j] += dy[j] * xhat[j];
        db[j] += dy[j];
    }
}

}  // namespace

void layernorm_forward(Mat y, ConstMat x, const LayerNorm& ln) {
    const std::size_t d = x.cols;
    if (ln.gamma.size() != d || ln.beta.size() != d || y.cols != d || y.rows != x.rows)
        throw Error("layer norm: width " + std::to_string(d) + " does not fit parameters of " +
                    std::to_string(ln.gamma.size()));
    const float* g = ln.gamma.data();
    const float* b = ln.beta.data();
    const std::size_t tasks = (x.rows + kRowsPerTask - 1) / kRowsPerTask;
    parallel_for(tasks, [&](std::size_t t) {
        for (std::size_t i = t * kRowsPerTask; i < std::min(x.rows, (t + 1) * kRowsPerTask); ++i) {
            const float* xr = x.data + i * x.ld;
            float* yr = y.data + i * y.ld;
            const RowStats st = row_stats(xr, d, ln.eps);
            for (std::size_t j = 0; j < d; ++j) yr[j] = (xr[j] - st.mean) * st.inv * g[j] + b[j];
        }
    });
}

void layernorm_backward(Mat dx, LayerNorm& grad, ConstMat dy, ConstMat x, const LayerNorm& ln) {
    const std::size_t d = x.cols;
    if (dy.cols != d || dx.cols != d || dy.rows != x.rows || dx.rows != x.rows || grad.gamma.size() != d)
        throw Error("layer norm backward: shapes do not fit width " + std::to_string(d));
    // Row chunks in parallel, each with its own dgamma/dbeta sums, added in chunk order
    // afterwards: the result does not depend on the thread count.
    const std::size_t chunks = (x.rows + kRowsPerTask - 1) / kRowsPerTask;
    std::vector<float> dgamma(chunks * d, 0.0f), dbeta(chunks * d, 0.0f);
    parallel_for(chunks, [&](std::size_t c) {
        thread_local std::vector<float> xhat_buf, gdy_buf;
        xhat_buf.resize(d), gdy_buf.resize(d);
        float* const xhat = xhat_buf.data();  // raw pointers: the loops below vectorise
        float* const gdy = gdy_buf.data();
        const float* const g = ln.gamma.data();
        float* dg = dgamma.data() + c * d;
        float* db = dbeta.data() + c * d;
        for (std::size_t i = c * kRowsPerTask; i < std::min(x.rows, (c + 1) * kRowsPerTask); ++i) {
            const float* xr = x.data + i * x.ld;
            const float* dyr = dy.data + i * dy.ld;
            const RowStats st = row_stats(xr, d, ln.eps);
            normalised_and_sums(xhat, gdy, dg, db, xr, dyr, g, d, st);
            float s1[kSumLanes] = {}, s2[kSumLanes] = {};  // sum(g dy), sum(g dy xhat), in lanes
            std::size_t j = 0;
            for (; j + kSumLanes <= d; j += kSumLanes)
                for (std::size_t l = 0; l < kSumLanes; ++l) s1[l] += gdy[j + l], s2[l] += gdy[j + l] * xhat[j + l];
            for (std::size_t l = 0; j < d; ++j, ++l) s1[l] += gdy[j], s2[l] += gdy[j] * xhat[j];
            float m1 = 0, m2 = 0;
            for (std::size_t l = 0; l < kSumLanes; ++l) m1 += s1[l], m2 += s2[l];
            m1 /= float(d), m2 /= float(d);
            float* dxr = dx.data + i * dx.ld;  // may alias dy: dyr is not read after this point
            for (j = 0; j < d; ++j) dxr[j] = st.inv * (gdy[j] - m1 - xhat[j] * m2);
        }
    });
    for (std::size_t j = 0; j < d; ++j) {
        double sg = 0, sb = 0;
        for (std::size_t c = 0; c < chunks; ++c) sg += dgamma[c * d + j], sb += dbeta[c * d + j];
        grad.gamma[j] += float(sg);
        grad.beta[j] += float(sb);
    }
}

}  // namespace tfm
