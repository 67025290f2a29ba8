#include "tfm/bench_attention.hpp"

#include <vector>

#include "tfm/multihead.hpp"

namespace tfm {

AttentionBenchPoint bench_attention(std::size_t n, std::size_t d, std::size_t heads, bool causal,
                                    const TimingOptions& opt) {
    MultiHeadConfig cfg;
    cfg.d = d;
    cfg.attention.heads = heads;
    cfg.attention.causal = causal;
    MultiHeadParams p = random_multihead(cfg, 1);
    std::vector<float> x(n * d), y(n * d);
    Rng rng(2);
    for (float& v : x) v = rng.uniform(-1, 1);
    MultiHeadWorkspace ws;
    PrefixMask mask{n, causal};
    ConstMat xm = mat(x.data(), n, d);
    AttentionBenchPoint pt;
    pt.n = n;
    pt.d = d;
    pt.heads = heads;
    pt.timing = time_it([&] { multihead_forward(mat(y.data(), n, d), nullptr, xm, xm, xm, mask, cfg.attention, p, ws); }, opt);
    pt.flops = multihead_flops(n, n, d, p);
    pt.gflops = pt.flops / pt.timing.min * 1e-9;
    pt.scores_bytes = double(n) * double(n) * sizeof(float);  // one head at a time
    return pt;
}

}  // namespace tfm
