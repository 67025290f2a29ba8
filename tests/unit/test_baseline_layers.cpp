// The comparison layers of tfm-bench (recurrent, convolution, restricted attention) against
// plain loops in double precision.
#include <cmath>

#include "helpers.hpp"
#include "tfm/nn/attention.hpp"
#include "bench/baseline_layers.hpp"
#include "tfm/base/random.hpp"

using namespace tfm;
using tfm_test::random_vec;

namespace {

void check_all_close(const std::vector<float>& got, const std::vector<double>& want, double tol) {
    REQUIRE(got.size() == want.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) bad += std::fabs(got[i] - want[i]) > tol * (1 + std::fabs(want[i]));
    CHECK(bad == 0);
}

// Naive attention of row i over keys [lo, hi) of head h (Q = K = V = x).
void naive_attention(std::vector<double>& out, const std::vector<float>& x, std::size_t n, std::size_t d,
                     std::size_t heads, std::size_t half) {
    const std::size_t k = d / heads;
    out.assign(n * d, 0.0);
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t lo = i > half ? i - half : 0, hi = std::min(n, i + half + 1);
            std::vector<double> s(hi - lo);
            double mx = -1e300, sum = 0;
            for (std::size_t j = lo; j < hi; ++j) {
                double dot = 0;
                for (std::size_t c = 0; c < k; ++c) dot += double(x[i * d + h * k + c]) * x[j * d + h * k + c];
                s[j - lo] = dot / std::sqrt(double(k));
                mx = std::max(mx, s[j - lo]);
            }
            for (double& v : s) sum += (v = std::exp(v - mx));
            for (std::size_t j = lo; j < hi; ++j)
                for (std::size_t c = 0; c < k; ++c) out[i * d + h * k + c] += s[j - lo] / sum * x[j * d + h * k + c];
        }
}

}  // namespace

TEST_CASE("baseline layers: the recurrent layer is h_t = tanh(W x_t + U h_{t-1} + b)") {
    const std::size_t n = 9, d = 6;
    auto x = random_vec(n * d, 1), w = random_vec(d * d, 2, 0.5f), u = random_vec(d * d, 3, 0.5f), b = random_vec(d, 4);
    std::vector<float> out(n * d);
    recurrent_forward(mat(out.data(), n, d), mat(x.data(), n, d), mat(w.data(), d, d), mat(u.data(), d, d), b.data());
    std::vector<double> want(n * d), h(d, 0.0);
    for (std::size_t t = 0; t < n; ++t) {
        std::vector<double> next(d);
        for (std::size_t i = 0; i < d; ++i) {
            double a = b[i];
            for (std::size_t j = 0; j < d; ++j) a += double(w[i * d + j]) * x[t * d + j] + double(u[i * d + j]) * h[j];
            next[i] = std::tanh(a);
        }
        h = next;
        std::copy(h.begin(), h.end(), want.begin() + std::ptrdiff_t(t * d));
    }
    check_all_close(out, want, 1e-5);
    CHECK(recurrent_flops(10, 4) == 640.0);
}

TEST_CASE("baseline layers: convolution of odd and even kernel widths, zero outside the sequence") {
    const std::size_t n = 11, d = 5;
    auto x = random_vec(n * d, 5), b = random_vec(d, 6);
    for (std::size_t k : {1, 3, 4}) {
        CAPTURE(k);
        auto w = random_vec(d * k * d, 7 + k, 0.3f);
        std::vector<float> out(n * d), cols;
        convolution_forward(mat(out.data(), n, d), mat(x.data(), n, d), mat(w.data(), d, k * d), b.data(), k, cols);
        std::vector<double> want(n * d);
        const std::ptrdiff_t half = std::ptrdiff_t(k - 1) / 2;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t o = 0; o < d; ++o) {
                double a = b[o];
                for (std::size_t j = 0; j < k; ++j) {
                    const std::ptrdiff_t s = std::ptrdiff_t(i + j) - half;
                    if (s < 0 || s >= std::ptrdiff_t(n)) continue;
                    for (std::size_t c = 0; c < d; ++c) a += double(w[o * k * d + j * d + c]) * x[std::size_t(s) * d + c];
                }
                want[i * d + o] = a;
            }
        check_all_close(out, want, 1e-5);
    }
    CHECK(convolution_flops(10, 4, 3) == 960.0);
}

TEST_CASE("baseline layers: restricted attention sees its window only; a wide window is full attention") {
    const std::size_t n = 150, d = 8, heads = 2;  // more than two query blocks
    auto x = random_vec(n * d, 9);
    for (std::size_t r : {2, 10, 65}) {
        CAPTURE(r);
        std::vector<float> out(n * d);
        restricted_attention(mat(out.data(), n, d), mat(x.data(), n, d), heads, r);
        std::vector<double> want;
        naive_attention(want, x, n, d, heads, r / 2);
        check_all_close(out, want, 1e-5);
    }
    std::vector<float> wide(n * d), full(n * d);
    restricted_attention(mat(wide.data(), n, d), mat(x.data(), n, d), heads, 2 * n);
    AttentionOptions a;
    a.heads = heads;
    ConstMat xm = mat(x.data(), n, d);
    dot_product_attention({AttentionItem{xm, xm, xm, mat(full.data(), n, d), nullptr, n, {}, 0}}, a);
    std::vector<double> fd(full.begin(), full.end());
    check_all_close(wide, fd, 1e-5);
    CHECK(restricted_attention_flops(n, d, 2 * n) == attention_flops(n, n, d, d));
}
