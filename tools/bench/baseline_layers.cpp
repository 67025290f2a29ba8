#include "bench/baseline_layers.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/nn/attention.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

void recurrent_forward(Mat out, ConstMat x, ConstMat w, ConstMat u, const float* b) {
    const std::size_t n = x.rows, d = x.cols;
    if (out.rows != n || out.cols != d || w.rows != d || w.cols != d || u.rows != d || u.cols != d)
        throw Error("recurrent layer: shapes do not fit [n,d] = [" + std::to_string(n) + "," + std::to_string(d) + "]");
    gemm(out, x, Op::N, w, Op::T);  // W x_t for every t at once
    for (std::size_t t = 0; t < n; ++t) {
        float* h = out.data + t * out.ld;
        for (std::size_t j = 0; j < d; ++j) h[j] += b[j];
        if (t > 0) gemv(h, u, Op::N, out.data + (t - 1) * out.ld, 1.0f, 1.0f);  // + U h_{t-1}
        tanh_inplace(h, d);
    }
}

void convolution_forward(Mat out, ConstMat x, ConstMat w, const float* b, std::size_t k, std::vector<float>& cols) {
    const std::size_t n = x.rows, d = x.cols;
    if (k == 0 || out.rows != n || out.cols != d || w.rows != d || w.cols != k * d)
        throw Error("convolution: shapes do not fit [n,d] = [" + std::to_string(n) + "," + std::to_string(d) +
                    "] and kernel " + std::to_string(k));
    cols.assign(n * k * d, 0.0f);
    const std::ptrdiff_t half = std::ptrdiff_t(k - 1) / 2;
    parallel_for(n, [&](std::size_t i) {
        for (std::size_t j = 0; j < k; ++j) {
            const std::ptrdiff_t src = std::ptrdiff_t(i) + std::ptrdiff_t(j) - half;
            if (src < 0 || src >= std::ptrdiff_t(n)) continue;
            std::copy(x.data + std::size_t(src) * x.ld, x.data + std::size_t(src) * x.ld + d, &cols[(i * k + j) * d]);
        }
    });
    for (std::size_t i = 0; i < n; ++i) std::copy(b, b + d, out.data + i * out.ld);
    gemm(out, mat(cols.data(), n, k * d), Op::N, w, Op::T, 1.0f, 1.0f);
}

void restricted_attention(Mat out, ConstMat x, std::size_t heads, std::size_t r) {
    const std::size_t n = x.rows, d = x.cols, kd = head_size(d, heads), half = r / 2;
    if (out.rows != n || out.cols != d) throw Error("restricted attention: output shape does not fit the input");
    constexpr std::size_t kBlock = 64;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    const float scale = 1.0f / std::sqrt(float(kd));
    parallel_for(heads * blocks, [&](std::size_t task) {
        const std::size_t h = task / blocks, i0 = (task % blocks) * kBlock, rows = std::min(kBlock, n - i0);
        const std::size_t k0 = i0 > half ? i0 - half : 0, k1 = std::min(n, i0 + rows + half);  // keys of the block
        thread_local std::vector<float> s;
        s.resize(rows * (k1 - k0));
        Mat sc = mat(s.data(), rows, k1 - k0);
        ConstMat xh = x.cols_range(h * kd, kd);
        gemm(sc, xh.rows_range(i0, rows), Op::N, xh.rows_range(k0, k1 - k0), Op::T, scale);
        for (std::size_t q = 0; q < rows; ++q) {  // softmax over the row's own window
            const std::size_t i = i0 + q, lo = (i > half ? i - half : 0) - k0, hi = std::min(n, i + half + 1) - k0;
            float* row = sc.data + q * sc.ld;
            const float mx = max_of(row + lo, hi - lo);
            const float inv = 1.0f / exp_shifted(row + lo, row + lo, hi - lo, mx);
            for (std::size_t j = lo; j < hi; ++j) row[j] *= inv;
            std::fill(row, row + lo, 0.0f);
            std::fill(row + hi, row + sc.cols, 0.0f);
        }
        gemm(out.rows_range(i0, rows).cols_range(h * kd, kd), sc, Op::N, xh.rows_range(k0, k1 - k0), Op::N);
    });
}

double recurrent_flops(std::size_t n, std::size_t d) { return 4.0 * double(n) * double(d) * double(d); }

double convolution_flops(std::size_t n, std::size_t d, std::size_t k) {
    return 2.0 * double(n) * double(k) * double(d) * double(d);
}

double restricted_attention_flops(std::size_t n, std::size_t d, std::size_t r) {
    double keys = 0;  // keys each query sees, summed
    const std::size_t half = r / 2;
    for (std::size_t i = 0; i < n; ++i) keys += double(std::min(n, i + half + 1) - (i > half ? i - half : 0));
    return 4.0 * keys * double(d);
}

}  // namespace tfm
