#include "bench/bench_layers.hpp"

#include <cmath>
#include <vector>

#include "tfm/nn/attention.hpp"
#include "bench/baseline_layers.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/random.hpp"

namespace tfm {

LayerTheory layer_theory(LayerKind kind) {
    switch (kind) {
        case LayerKind::SelfAttention: return {"self-attention", "n^2·d", "1", "1"};
        case LayerKind::Recurrent: return {"recurrent", "n·d^2", "n", "n"};
        case LayerKind::Convolution: return {"convolutional", "k·n·d^2", "1", "log_k(n)"};
        case LayerKind::Restricted: return {"restricted", "r·n·d", "1", "n/r"};
    }
    return {"?", "?", "?", "?"};
}

LayerKind parse_layer_kind(const std::string& name) {
    for (LayerKind k : {LayerKind::SelfAttention, LayerKind::Recurrent, LayerKind::Convolution, LayerKind::Restricted})
        if (name == layer_theory(k).name) return k;
    throw UsageError("unknown layer '" + name + "' (self-attention, recurrent, convolutional, restricted)");
}

LayerBenchPoint bench_layer(LayerKind kind, std::size_t n, std::size_t d, const LayerBenchOptions& opt) {
    Rng rng(5);
    auto random = [&](std::size_t count, float scale) {
        std::vector<float> v(count);
        for (float& x : v) x = rng.uniform(-scale, scale);
        return v;
    };
    const std::vector<float> x = random(n * d, 1.0f);
    std::vector<float> y(n * d);
    const ConstMat xm = mat(x.data(), n, d);
    const Mat ym = mat(y.data(), n, d);
    LayerBenchPoint p;
    switch (kind) {
        case LayerKind::SelfAttention: {
            AttentionOptions a;
            a.heads = opt.heads;
            head_size(d, opt.heads);
            p.timing = time_it([&] { dot_product_attention({AttentionItem{xm, xm, xm, ym, nullptr, n, {}, 0}}, a); }, opt.timing);
            p.flops = attention_flops(n, n, d, d);
            break;
        }
        case LayerKind::Recurrent: {
            const float s = 1.0f / std::sqrt(float(d));
            const std::vector<float> w = random(d * d, s), u = random(d * d, s), b = random(d, 0.1f);
            p.timing = time_it([&] { recurrent_forward(ym, xm, mat(w.data(), d, d), mat(u.data(), d, d), b.data()); },
                               opt.timing);
            p.flops = recurrent_flops(n, d);
            break;
        }
        case LayerKind::Convolution: {
            const std::vector<float> w = random(d * opt.kernel * d, 0.05f), b = random(d, 0.1f);
            std::vector<float> cols;
            p.timing = time_it(
                [&] { convolution_forward(ym, xm, mat(w.data(), d, opt.kernel * d), b.data(), opt.kernel, cols); },
                opt.timing);
            p.flops = convolution_flops(n, d, opt.kernel);
            break;
        }
        case LayerKind::Restricted:
            head_size(d, opt.heads);
            p.timing = time_it([&] { restricted_attention(ym, xm, opt.heads, opt.window); }, opt.timing);
            p.flops = restricted_attention_flops(n, d, opt.window);
            break;
    }
    p.gflops = p.flops / p.timing.min * 1e-9;
    return p;
}

}  // namespace tfm
