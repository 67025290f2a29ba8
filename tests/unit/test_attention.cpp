// Attention: PyTorch fixtures, the worked 3-token example, multi-head = concatenated heads,
// masks, and an xtensor-blas reference implementation.
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

#include "helpers.hpp"
#include "tfm/base/error.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/base/parallel.hpp"

using namespace tfm;
using tfm_test::check_close;
using tfm_test::error_of;

namespace {

xt::xtensor<float, 2> random_matrix(std::size_t r, std::size_t c, std::uint64_t seed) {
    Rng rng(seed);
    auto m = xt::xtensor<float, 2>::from_shape({r, c});
    for (float& v : m) v = rng.uniform(-1.5f, 1.5f);
    return m;
}

ConstMat cm(const xt::xtensor<float, 2>& m) { return mat(m.data(), m.shape(0), m.shape(1)); }

// softmax(q k^T * scale + mask) v for one head, with xtensor-blas: the independent reference.
xt::xtensor<float, 2> reference_head(const xt::xtensor<float, 2>& q, const xt::xtensor<float, 2>& k,
                                     const xt::xtensor<float, 2>& v, double scale, std::size_t key_len, bool causal) {
    xt::xtensor<double, 2> s = xt::linalg::dot(xt::xtensor<double, 2>(q), xt::transpose(xt::xtensor<double, 2>(k)));
    s *= scale;
    const std::size_t tq = q.shape(0), tk = k.shape(0);
    xt::xtensor<double, 2> p = xt::zeros<double>({tq, tk});
    for (std::size_t i = 0; i < tq; ++i) {
        std::size_t n = std::min(key_len, causal ? i + 1 + tk - tq : tk);
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) mx = std::max(mx, s(i, j));
        for (std::size_t j = 0; j < n; ++j) sum += (p(i, j) = std::exp(s(i, j) - mx));
        for (std::size_t j = 0; j < n; ++j) p(i, j) /= sum;
    }
    return xt::xtensor<float, 2>(xt::linalg::dot(p, xt::xtensor<double, 2>(v)));
}

}  // namespace

TEST_CASE("attention: the worked 3-token example, softmax(X X^T) X by rows") {
    xt::xtensor<float, 2> x = {{1, 0}, {0, 1}, {1, 1}};
    xt::xtensor<float, 2> out = xt::zeros<float>({3, 2}), w = xt::zeros<float>({3, 3});
    AttentionOptions opt;
    opt.scaled = false;
    dot_product_attention(mat(out.data(), 3, 2), w.data(), cm(x), cm(x), cm(x), {3}, opt);
    // X X^T = [[1,0,1],[0,1,1],[1,1,2]]; row softmax by hand:
    const double e = std::exp(1.0);
    double r0[3] = {e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)};
    double r2[3] = {e / (2 * e + e * e), e / (2 * e + e * e), e * e / (2 * e + e * e)};
    for (int j = 0; j < 3; ++j) {
        CHECK(w(0, j) == doctest::Approx(r0[j]).epsilon(1e-6));
        CHECK(w(1, j) == doctest::Approx(j == 2 ? r0[0] : j == 1 ? r0[0] : r0[1]).epsilon(1e-6));
        CHECK(w(2, j) == doctest::Approx(r2[j]).epsilon(1e-6));
    }
    CHECK(out(0, 0) == doctest::Approx(r0[0] + r0[2]).epsilon(1e-6));
    CHECK(out(0, 1) == doctest::Approx(r0[1] + r0[2]).epsilon(1e-6));
    CHECK(out(2, 0) == doctest::Approx(r2[0] + r2[2]).epsilon(1e-6));
}

TEST_CASE("attention: matches PyTorch's multi_head_attention_forward on the fixtures") {
    struct Case {
        const char* name;
        std::size_t heads;
        bool causal;
    };
    for (const Case& c : {Case{"self_h1", 1, false}, Case{"self_h8", 8, false}, Case{"causal_h4", 4, true},
                          Case{"long_h2", 2, false}}) {
        CAPTURE(c.name);
        std::string base = std::string(TFM_GOLDEN) + "/attn_" + c.name;
        auto x = as_float(std::move(tfm_test::read_file(base + "_in.npy")[0]));
        auto expected = tfm_test::read_file(base + "_out.npy");
        const std::size_t t = x.shape(0), d = x.shape(1);
        MultiHeadConfig cfg;
        cfg.d = d;
        cfg.attention.heads = c.heads;
        cfg.attention.causal = c.causal;
        auto params = load_multihead(SafeTensors::open(base + ".safetensors"), "", cfg);
        xt::xtensor<float, 2> y = xt::zeros<float>({t, d});
        xt::xtensor<float, 3> w = xt::zeros<float>({c.heads, t, t});
        MultiHeadWorkspace ws;
        ConstMat xm = mat(x.data(), t, d);
        multihead_forward(mat(y.data(), t, d), w.data(), xm, xm, xm, {t, c.causal}, cfg.attention, params, ws);
        check_close(y, as_float(expected[0]));
        check_close(w, as_float(expected[1]));
    }
}

TEST_CASE("attention: multi-head output is the concatenation of single-head attention per slice") {
    const std::size_t t = 150, d = 48, heads = 6, dk = d / heads;
    auto x = random_matrix(t, d, 1);
    xt::xtensor<float, 2> multi = xt::zeros<float>({t, d});
    AttentionOptions opt;
    opt.heads = heads;
    opt.causal = true;
    dot_product_attention(mat(multi.data(), t, d), nullptr, cm(x), cm(x), cm(x), {t, true}, opt);
    for (std::size_t h = 0; h < heads; ++h) {
        xt::xtensor<float, 2> xs = xt::view(x, xt::all(), xt::range(h * dk, (h + 1) * dk));
        xt::xtensor<float, 2> single = xt::zeros<float>({t, dk});
        AttentionOptions one = opt;
        one.heads = 1;
        dot_product_attention(mat(single.data(), t, dk), nullptr, cm(xs), cm(xs), cm(xs), {t, true}, one);
        xt::xtensor<float, 2> slice = xt::view(multi, xt::all(), xt::range(h * dk, (h + 1) * dk));
        check_close(slice, single, 0, 0);  // the same arithmetic: identical
        check_close(single, reference_head(xs, xs, xs, 1 / std::sqrt(double(dk)), t, true), 1e-5, 1e-6);
    }
}

TEST_CASE("attention: padding and causal masks against the reference; weights rows sum to 1") {
    const std::size_t tq = 70, tk = 300, d = 32, heads = 4, dk = 8;
    auto q = random_matrix(tq, d, 2), k = random_matrix(tk, d, 3), v = random_matrix(tk, d, 4);
    for (bool causal : {false, true}) {
        for (std::size_t len : {std::size_t(300), std::size_t(257), std::size_t(5)}) {
            CAPTURE(causal);
            CAPTURE(len);
            xt::xtensor<float, 2> out = xt::zeros<float>({tq, d});
            xt::xtensor<float, 3> w = xt::zeros<float>({heads, tq, tk});
            AttentionOptions opt;
            opt.heads = heads;
            dot_product_attention(mat(out.data(), tq, d), w.data(), cm(q), cm(k), cm(v), {len, causal}, opt);
            for (std::size_t h = 0; h < heads; ++h) {
                auto sl = [&](const xt::xtensor<float, 2>& m) {
                    return xt::xtensor<float, 2>(xt::view(m, xt::all(), xt::range(h * dk, (h + 1) * dk)));
                };
                xt::xtensor<float, 2> got = xt::view(out, xt::all(), xt::range(h * dk, (h + 1) * dk));
                check_close(got, reference_head(sl(q), sl(k), sl(v), 1 / std::sqrt(8.0), len, causal), 1e-5, 1e-6);
            }
            for (std::size_t h = 0; h < heads; ++h)
                for (std::size_t i = 0; i < tq; ++i) {
                    double sum = 0;
                    for (std::size_t j = 0; j < tk; ++j) {
                        sum += w(h, i, j);
                        if (j >= len || (causal && j > i + tk - tq)) REQUIRE(w(h, i, j) == 0.0f);
                    }
                    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
                }
        }
    }
}

TEST_CASE("attention: a row with no visible key gives zeros, never NaN") {
    auto x = random_matrix(6, 8, 5);
    xt::xtensor<float, 2> out = xt::ones<float>({6, 8});
    xt::xtensor<float, 3> w = xt::ones<float>({2, 6, 6});
    AttentionOptions opt;
    opt.heads = 2;
    dot_product_attention(mat(out.data(), 6, 8), w.data(), cm(x), cm(x), cm(x), {0, false}, opt);
    CHECK(xt::all(xt::equal(out, 0.0f)));
    CHECK(xt::all(xt::equal(w, 0.0f)));
    // Causal with fewer keys than queries: the first queries see nothing.
    auto k = random_matrix(3, 8, 6);
    out.fill(1.0f);
    opt.causal = true;
    dot_product_attention(mat(out.data(), 6, 8), nullptr, cm(x), cm(k), cm(k), {3, true}, opt);
    CHECK(xt::all(xt::isfinite(out)));
    for (std::size_t j = 0; j < 8; ++j) {
        CHECK(out(0, j) == 0.0f);
        CHECK(out(2, j) == 0.0f);
    }
    CHECK(xt::any(xt::not_equal(xt::view(out, 3, xt::all()), 0.0f)));
}

TEST_CASE("attention: D not divisible by H is an error naming both") {
    CHECK(error_of([] { head_size(10, 3); }) == "D=10 is not divisible by H=3 heads (D must equal H x head size)");
    CHECK(error_of([] { head_size(8, 0); }).find("at least 1") != std::string::npos);
}

TEST_CASE("attention: without projections each token attends mostly to itself") {
    const std::size_t t = 40, d = 64;
    auto x = random_matrix(t, d, 7);
    xt::xtensor<float, 2> out = xt::zeros<float>({t, d});
    xt::xtensor<float, 3> w = xt::zeros<float>({std::size_t(1), t, t});
    dot_product_attention(mat(out.data(), t, d), w.data(), cm(x), cm(x), cm(x), {t}, {});
    for (std::size_t i = 0; i < t; ++i) CHECK(xt::argmax(xt::view(w, 0, i, xt::all()))() == i);
}

TEST_CASE("attention: shared K=V projection equals loading W^V = W^K") {
    const std::size_t t = 9, d = 16;
    MultiHeadConfig cfg;
    cfg.d = d;
    cfg.attention.heads = 4;
    cfg.shared_kv = true;
    auto shared = random_multihead(cfg, 11);
    CHECK(!shared.v);
    MultiHeadParams tied = shared;
    tied.shared_kv = false;
    tied.v = shared.k;
    auto x = random_matrix(t, d, 8), mem = random_matrix(12, d, 9);
    xt::xtensor<float, 2> a = xt::zeros<float>({t, d}), b = xt::zeros<float>({t, d});
    MultiHeadWorkspace ws;
    multihead_forward(mat(a.data(), t, d), nullptr, cm(x), cm(mem), cm(mem), {12}, cfg.attention, shared, ws);
    multihead_forward(mat(b.data(), t, d), nullptr, cm(x), cm(mem), cm(mem), {12}, cfg.attention, tied, ws);
    check_close(a, b, 0, 0);
}

TEST_CASE("attention: results are bit-identical whatever the thread count") {
    const std::size_t t = 300, d = 64;
    auto x = random_matrix(t, d, 10);
    MultiHeadConfig cfg;
    cfg.d = d;
    cfg.attention.heads = 4;
    auto p = random_multihead(cfg, 3);
    auto run = [&](int threads) {
        set_num_threads(threads);
        xt::xtensor<float, 2> y = xt::zeros<float>({t, d});
        MultiHeadWorkspace ws;
        multihead_forward(mat(y.data(), t, d), nullptr, cm(x), cm(x), cm(x), {t, true}, cfg.attention, p, ws);
        return y;
    };
    auto one = run(1), two = run(2), three = run(3);
    set_num_threads(0);
    CHECK(one == two);
    CHECK(one == three);
}
