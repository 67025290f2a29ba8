#include "tfm/layernorm.hpp"

#include <cmath>
#include <vector>

#include "tfm/error.hpp"
#include "tfm/parallel.hpp"

namespace tfm {

LayerNorm identity_layernorm(std::size_t d, float eps) {
    return {xt::ones<float>({d}), xt::zeros<float>({d}), eps};
}

void layernorm_forward(Mat y, ConstMat x, const LayerNorm& ln) {
    const std::size_t d = x.cols;
    if (ln.gamma.size() != d || ln.beta.size() != d || y.cols != d || y.rows != x.rows)
        throw Error("layer norm: width " + std::to_string(d) + " does not fit parameters of " +
                    std::to_string(ln.gamma.size()));
    const float* g = ln.gamma.data();
    const float* b = ln.beta.data();
    auto rows = [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            const float* xr = x.data + i * x.ld;
            float* yr = y.data + i * y.ld;
            double sum = 0, sq = 0;  // two-pass in double: exact enough for any row length
            for (std::size_t j = 0; j < d; ++j) sum += xr[j];
            const double mean = sum / double(d);
            for (std::size_t j = 0; j < d; ++j) {
                double c = xr[j] - mean;
                sq += c * c;
            }
            const float inv = float(1.0 / std::sqrt(sq / double(d) + double(ln.eps)));
            const float m = float(mean);
            for (std::size_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * inv * g[j] + b[j];
        }
    };
    constexpr std::size_t kRowsPerTask = 64;
    const std::size_t tasks = (x.rows + kRowsPerTask - 1) / kRowsPerTask;
    parallel_for(tasks, [&](std::size_t t) { rows(t * kRowsPerTask, std::min(x.rows, (t + 1) * kRowsPerTask)); });
}

void layernorm_backward(Mat dx, LayerNorm& grad, ConstMat dy, ConstMat x, const LayerNorm& ln) {
    const std::size_t d = x.cols;
    if (dy.cols != d || dx.cols != d || dy.rows != x.rows || dx.rows != x.rows || grad.gamma.size() != d)
        throw Error("layer norm backward: shapes do not fit width " + std::to_string(d));
    const float* g = ln.gamma.data();
    // Row chunks in parallel, each with its own dgamma/dbeta sums, added in chunk order
    // afterwards: the result does not depend on the thread count.
    constexpr std::size_t kRows = 64;
    const std::size_t chunks = (x.rows + kRows - 1) / kRows;
    std::vector<double> dgamma(chunks * d, 0.0), dbeta(chunks * d, 0.0);
    parallel_for(chunks, [&](std::size_t c) {
        thread_local std::vector<float> xhat;
        xhat.resize(d);
        double* dg = dgamma.data() + c * d;
        double* db = dbeta.data() + c * d;
        for (std::size_t i = c * kRows; i < std::min(x.rows, (c + 1) * kRows); ++i) {
            const float* xr = x.data + i * x.ld;
            const float* dyr = dy.data + i * dy.ld;
            double sum = 0, sq = 0;
            for (std::size_t j = 0; j < d; ++j) sum += xr[j];
            const double mean = sum / double(d);
            for (std::size_t j = 0; j < d; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
            const double inv = 1.0 / std::sqrt(sq / double(d) + double(ln.eps));
            double s1 = 0, s2 = 0;  // sum(g dy), sum(g dy xhat)
            for (std::size_t j = 0; j < d; ++j) {
                xhat[j] = float((xr[j] - mean) * inv);
                const double gdy = double(g[j]) * dyr[j];
                s1 += gdy;
                s2 += gdy * xhat[j];
                dg[j] += double(dyr[j]) * xhat[j];
                db[j] += dyr[j];
            }
            float* dxr = dx.data + i * dx.ld;  // may alias dy: dyr[j] is read before dxr[j] is written
            for (std::size_t j = 0; j < d; ++j)
                dxr[j] = float(inv * (double(g[j]) * dyr[j] - s1 / double(d) - xhat[j] * s2 / double(d)));
        }
    });
    for (std::size_t c = 0; c < chunks; ++c)
        for (std::size_t j = 0; j < d; ++j) {
            grad.gamma[j] += float(dgamma[c * d + j]);
            grad.beta[j] += float(dbeta[c * d + j]);
        }
}

}  // namespace tfm
