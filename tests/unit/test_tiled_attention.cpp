// Tiled attention (online softmax over key blocks) gives what the plain blocked attention
// gives, to 1e-5, for every mask and shape.
#include <cmath>

#include "helpers.hpp"
#include "tfm/base/random.hpp"
#include "tfm/nn/attention.hpp"
#include "tfm/nn/tiled_attention.hpp"

using namespace tfm;
using tfm_test::random_vec;
using tfm_test::error_of;

TEST_CASE("tiled attention equals the plain one: self, cross, causal, padding, heads, unscaled") {
    struct Case {
        std::size_t tq, tk, d, heads, key_len;
        bool causal, scaled;
        float spread;  // large spreads make the online maximum move between key blocks
    };
    for (const Case& c : {Case{1, 1, 8, 1, 1, false, true, 1}, Case{37, 37, 16, 2, 37, false, true, 1},
                          Case{150, 1000, 32, 4, 1000, false, true, 3}, Case{150, 700, 32, 4, 333, false, true, 3},
                          Case{300, 300, 16, 2, 300, true, true, 4}, Case{100, 600, 16, 4, 600, true, false, 0.3f},
                          Case{70, 520, 24, 3, 0, false, true, 1}, Case{65, 65, 8, 8, 20, true, true, 8}}) {
        CAPTURE(c.tq);
        CAPTURE(c.tk);
        CAPTURE(c.heads);
        CAPTURE(c.causal);
        auto q = random_vec(c.tq * c.d, 1 + c.tq, c.spread), k = random_vec(c.tk * c.d, 2 + c.tk, c.spread),
             v = random_vec(c.tk * c.d, 3, 1.0f);
        std::vector<float> plain(c.tq * c.d), tiled(c.tq * c.d, 99.0f);
        AttentionOptions o;
        o.heads = c.heads;
        o.causal = c.causal;
        o.scaled = c.scaled;
        ConstMat qm = mat(q.data(), c.tq, c.d), km = mat(k.data(), c.tk, c.d), vm = mat(v.data(), c.tk, c.d);
        dot_product_attention({AttentionItem{qm, km, vm, mat(plain.data(), c.tq, c.d), nullptr, c.key_len, {}, 0}}, o);
        tiled_attention({AttentionItem{qm, km, vm, mat(tiled.data(), c.tq, c.d), nullptr, c.key_len, {}, 0}}, o);
        double worst = 0;
        for (std::size_t i = 0; i < plain.size(); ++i)
            worst = std::max(worst, std::fabs(double(plain[i]) - tiled[i]) / (1.0 + std::fabs(plain[i])));
        CHECK(worst <= 1e-5);
        if (c.key_len == 0)
            CHECK(*std::max_element(tiled.begin(), tiled.end()) == 0.0f);  // fully masked rows are zeros
    }
}

TEST_CASE("tiled attention: batches of strided views, and no weights") {
    const std::size_t b = 3, t = 90, d = 16;
    auto x = random_vec(b * t * d, 7, 2.0f);
    std::vector<float> plain(b * t * d), tiled(b * t * d);
    std::vector<AttentionItem> pi, ti;
    for (std::size_t i = 0; i < b; ++i) {
        ConstMat xi = mat(x.data() + i * t * d, t, d);
        pi.push_back({xi, xi, xi, mat(plain.data() + i * t * d, t, d), nullptr, t - 10 * i, {}, 0});
        ti.push_back({xi, xi, xi, mat(tiled.data() + i * t * d, t, d), nullptr, t - 10 * i, {}, 0});
    }
    AttentionOptions o;
    o.heads = 4;
    dot_product_attention(pi, o);
    tiled_attention(ti, o);
    for (std::size_t i = 0; i < plain.size(); ++i) REQUIRE(std::fabs(plain[i] - tiled[i]) <= 1e-5f * (1 + std::fabs(plain[i])));
    float w[4];
    ti[0].weights = w;
    CHECK(error_of([&] { tiled_attention(ti, o); }).find("no attention weights") != std::string::npos);
    CHECK(tiled_scratch_bytes(512, 8) < blocked_scratch_bytes(4096));
}
