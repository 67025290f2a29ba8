#include "bench/bench_train.hpp"

#include "bench/bench_translate.hpp"
#include "tfm/train/optimizer.hpp"
#include "tfm/base/gemm.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/random.hpp"
#include "tfm/train/training.hpp"

namespace tfm {

TrainBenchPoint bench_train(const TrainBenchOptions& o) {
    ModelConfig c = preset_config("small", o.vocab);
    c.encoder_layers = c.decoder_layers = o.layers;
    c.d_model = o.d_model;
    c.encoder_heads = c.decoder_heads = o.heads;
    c.encoder_ffn = c.decoder_ffn = o.ffn;
    Model m = random_model(c, 1);
    Model g = zeros_like(m);
    Adam adam(m, AdamOptions{});
    Rng rng(3);
    std::vector<std::vector<std::int64_t>> src(o.pairs), tgt(o.pairs);
    for (std::size_t i = 0; i < o.pairs; ++i) {
        for (std::size_t j = 0; j + 1 < o.length; ++j) src[i].push_back(3 + std::int64_t(rng.next() % (o.vocab - 3)));
        src[i].push_back(c.eos_id);
        for (std::size_t j = 0; j + 1 < o.length; ++j) tgt[i].push_back(3 + std::int64_t(rng.next() % (o.vocab - 3)));
    }
    TrainBatch batch = make_train_batch(src, tgt, c);  // o.length labels per pair (eos included)
    TrainOptions to;
    to.dropout = o.dropout;
    to.compute = o.compute;
    TrainingWorkspace ws;
    TrainBenchPoint p;
    std::size_t step = 0;
    double flops = 0;
    p.timing = time_it(
        [&] {
            visit_parameters(g, [](const std::string&, float* x, std::size_t n) { parallel_fill(x, n); });
            to.seed = step++;
            const double before = gemm_flops_done();
            LossStats st = forward_backward(m, batch, g, to, ws);
            flops = gemm_flops_done() - before;
            adam.update(m, g, 1.0 / double(st.tokens));
        },
        o.timing);
    p.target_tokens = batch.target_tokens;
    p.tokens_per_s = double(p.target_tokens) / p.timing.median;
    p.product_gflops = flops / p.timing.median * 1e-9;
    p.peak_rss_mib = peak_rss_mib();
    return p;
}

}  // namespace tfm
