// tfm-bench translate's limit: the FLOPs of a translation run's matrix products, counted by
// hand for a tiny model and product by product for a larger one.
#include <doctest/doctest.h>

#include "bench/bench_translate.hpp"

namespace translate_flops_tests {

using namespace tfm;

ModelConfig tiny(std::size_t layers, std::size_t d, std::size_t f, std::size_t v) {
    ModelConfig c;
    c.encoder_layers = c.decoder_layers = layers;
    c.d_model = d;
    c.encoder_ffn = c.decoder_ffn = f;
    c.vocab_size = v;
    return c;
}

// 2 FLOPs per multiply-add of an [m,k] x [k,n] product.
double product(double m, double k, double n) { return 2 * m * k * n; }

TEST_CASE("translate_product_flops: a one-layer model counted by hand") {
    // D 2, F 3, V 5; one sentence of 2 tokens, 2 steps, greedy:
    // encoder 4*(2x2x2) + 2*(2x2x2) + (2x2x3) + (2x3x2) = 64 + 32 + 48 = 144; memory K V 2*(2x2x2) = 32;
    // steps: t=1 and t=2, each 4*(1x2x2) + 2*(1x2x2) + 2*(1x2x2) + (1x2x3) + (1x3x2), i.e. 88,
    // plus self-attention over t keys 2*(1x2xt) (t=1: 8, t=2: 16), plus the output (1x2x5) = 20.
    TranslateBenchOptions o;
    o.sentences = 1;
    o.source_len = 2;
    o.output_len = 2;
    o.beam = 1;
    CHECK(translate_product_flops(tiny(1, 2, 3, 5), o) == doctest::Approx(144 + 32 + 2 * 88 + 8 + 16 + 2 * 20));
}

TEST_CASE("translate_product_flops: the base model's products one by one, beam and shortlist") {
    const ModelConfig c = tiny(6, 512, 2048, 8000);
    TranslateBenchOptions o;
    o.sentences = 4;
    o.source_len = 20;
    o.output_len = 24;
    o.beam = 4;
    o.shortlist = 1000;
    const double b = 4, s = 20, n = 16, d = 512, f = 2048;
    double want = 0;
    for (int l = 0; l < 6; ++l) {
        want += b * (4 * product(s, d, d) + product(s, d, s) + product(s, s, d) + product(s, d, f) + product(s, f, d));
        want += b * 2 * product(s, d, d);  // the memory's keys and values, per decoder layer
    }
    for (int t = 1; t <= 24; ++t) {
        for (int l = 0; l < 6; ++l)
            want += 4 * product(n, d, d) + product(n, d, t) + product(n, t, d) + 2 * product(n, d, d) +
                    product(n, d, s) + product(n, s, d) + product(n, d, f) + product(n, f, d);
        want += product(n, d, 1000);
    }
    CHECK(translate_product_flops(c, o) == doctest::Approx(want).epsilon(1e-12));
}

}  // namespace translate_flops_tests
