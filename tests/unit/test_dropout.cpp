// Dropout masks drawn from (key, element index): the rate and scale they promise, the same
// mask however the rows are split, and a different one for every key.
#include <cmath>
#include <limits>

#include "helpers.hpp"
#include "tfm/nn/dropout.hpp"
#include "tfm/base/parallel.hpp"

using namespace tfm;
using tfm_test::random_vec;

TEST_CASE("dropout: the rate, the scale and the independence of the draws") {
    const std::size_t n = 1 << 20;
    for (float p : {0.1f, 0.3f, 0.5f}) {
        CAPTURE(p);
        std::vector<float> m(n);
        dropout_mask_values(m.data(), n, 0, {dropout_key(7, 3), p});
        std::size_t dropped = 0, pairs_dropped = 0, other = 0;
        const float scale = float(1.0 / (1.0 - double(p)));
        for (std::size_t i = 0; i < n; ++i) {
            if (m[i] == 0.0f) ++dropped;
            else if (m[i] != scale) ++other;
            if (i % 2 == 1 && m[i] == 0.0f && m[i - 1] == 0.0f) ++pairs_dropped;
        }
        CHECK(other == 0);  // kept values are scaled by exactly 1 / (1 - p)
        // Binomial: 5 standard deviations either side.
        const double mean = double(n) * p, sd = std::sqrt(double(n) * p * (1 - p));
        CHECK(std::fabs(double(dropped) - mean) < 5 * sd);
        // Neighbours independent: both dropped with probability p^2.
        const double pm = double(n / 2) * p * p, psd = std::sqrt(double(n / 2) * p * p * (1 - p * p));
        CHECK(std::fabs(double(pairs_dropped) - pm) < 5 * psd);
        // The mean of x * mask is the mean of x (inverted dropout keeps the expectation).
        double sum = 0;
        for (float v : m) sum += v;
        CHECK(sum / double(n) == doctest::Approx(1.0).epsilon(0.01));
    }
}

TEST_CASE("dropout: one mask per key, the same in pieces and on every thread count") {
    const std::size_t n = 10007;
    const DropoutMask a{dropout_key(1, 0), 0.25f}, b{dropout_key(1, 1), 0.25f}, c{dropout_key(2, 0), 0.25f};
    std::vector<float> ma(n), mb(n), mc(n), again(n);
    dropout_mask_values(ma.data(), n, 0, a);
    dropout_mask_values(mb.data(), n, 0, b);
    dropout_mask_values(mc.data(), n, 0, c);
    dropout_mask_values(again.data(), n, 0, a);
    CHECK(ma == again);
    CHECK(ma != mb);
    CHECK(ma != mc);
    std::size_t same = 0;
    for (std::size_t i = 0; i < n; ++i) same += (ma[i] == 0.0f) == (mb[i] == 0.0f);
    CHECK(same < n * 7 / 10);  // agreement by chance is 1 - 2 p (1 - p) = 0.625
    // Pieces [0, k) and [k, n) with their offsets give the same mask as the whole.
    std::vector<float> pieces(n, 1.0f);
    for (std::size_t k : {std::size_t(1), std::size_t(17), std::size_t(5000)}) {
        dropout_mask_values(pieces.data(), k, 0, a);
        dropout_mask_values(pieces.data() + k, n - k, k, a);
        CHECK(pieces == ma);
    }
    // dropout_apply from parallel blocks, 1 and 3 threads.
    auto x = random_vec(n, 3);
    std::vector<std::vector<float>> outs;
    for (int t : {1, 3}) {
        set_num_threads(t);
        std::vector<float> y(n);
        parallel_blocks(n, 100, [&](std::size_t i0, std::size_t i1) { dropout_apply(y.data() + i0, x.data() + i0, i1 - i0, i0, a); });
        outs.push_back(y);
    }
    set_num_threads(0);
    CHECK(outs[0] == outs[1]);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += outs[0][i] != x[i] * ma[i];
    CHECK(wrong == 0);
}

TEST_CASE("dropout: the residual form, p = 0, and NaN") {
    const std::size_t n = 1000;
    auto x = random_vec(n, 4), r = random_vec(n, 5);
    const DropoutMask mask{dropout_key(9, 9), 0.4f};
    std::vector<float> m(n), sum(n), in_place = r;
    dropout_mask_values(m.data(), n, 0, mask);
    dropout_add(sum.data(), r.data(), x.data(), n, 0, mask);
    dropout_add(in_place.data(), in_place.data(), x.data(), n, 0, mask);
    // r + x m, rounded once (a fused multiply-add, as compilers contract it where the CPU has
    // FMA) or twice: which one is the library's build's choice, not the test's.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        volatile float product = x[i] * m[i];
        wrong += sum[i] != std::fma(x[i], m[i], r[i]) && sum[i] != r[i] + product;
    }
    CHECK(wrong == 0);
    CHECK(in_place == sum);
    // Inactive: plain copy and plain sum.
    std::vector<float> y(n);
    dropout_apply(y.data(), x.data(), n, 0, DropoutMask{});
    CHECK(y == x);
    dropout_add(sum.data(), r.data(), x.data(), n, 0, DropoutMask{123, 0.0f});
    for (std::size_t i = 0; i < n; ++i) wrong += sum[i] != r[i] + x[i];
    CHECK(wrong == 0);
    // NaN stays NaN where it is dropped as where it is kept.
    std::vector<float> nan(n, std::numeric_limits<float>::quiet_NaN());
    dropout_apply(y.data(), nan.data(), n, 0, mask);
    for (float v : y) CHECK(std::isnan(v));
    // p = 1 drops everything.
    dropout_mask_values(m.data(), n, 0, {dropout_key(1, 1), 1.0f});
    for (float v : m) CHECK(v == 0.0f);
}

TEST_CASE("dropout: a stream's three kinds of masks have keys of their own") {
    DropoutStream s(7, 0.1f, 0.2f, 0.3f);
    const DropoutMask a = s.next(), b = s.next_attention(), c = s.next_activation(), a2 = s.next();
    CHECK(a.key == dropout_key(7, 0));  // the sublayer masks keep the keys they always had
    CHECK(a2.key == dropout_key(7, 1));
    CHECK(a.p == 0.1f);
    CHECK(b.p == 0.2f);
    CHECK(c.p == 0.3f);
    CHECK(b.key != a.key);
    CHECK(b.key != a2.key);
    CHECK(c.key != b.key);
    CHECK(s.next_attention().key != b.key);
    // A kind switched off still counts: the next attention mask is the same either way.
    DropoutStream off(7, 0.1f, 0.0f, 0.3f);
    CHECK_FALSE(off.next_attention().active());
    DropoutStream on(7, 0.1f, 0.2f, 0.3f);
    on.next_attention();
    CHECK(off.next_activation().key == on.next_activation().key);
}
