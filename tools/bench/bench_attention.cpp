#include "bench/bench_attention.hpp"

#include <cstdio>
#include <fstream>
#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/nn/tiled_attention.hpp"

namespace tfm {

namespace {
std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1 << 30));
    return buf;
}
}  // namespace

BenchAlgorithm parse_bench_algorithm(const std::string& name) {
    if (name == "plain") return BenchAlgorithm::Plain;
    if (name == "blocked") return BenchAlgorithm::Blocked;
    if (name == "tiled") return BenchAlgorithm::Tiled;
    throw UsageError("unknown attention algorithm '" + name + "' (plain, blocked, tiled)");
}

const char* bench_algorithm_name(BenchAlgorithm a) {
    return a == BenchAlgorithm::Plain ? "plain" : a == BenchAlgorithm::Tiled ? "tiled" : "blocked";
}

double available_memory_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    double kb = 0;
    while (f >> key >> kb) {
        if (key == "MemAvailable:") return kb * 1024.0;
        f.ignore(256, '\n');
    }
    return 0;
}

AttentionBenchPoint bench_attention(std::size_t n, std::size_t d, std::size_t heads, bool causal,
                                    const TimingOptions& opt, BenchAlgorithm algorithm) {
    MultiHeadConfig cfg;
    cfg.d = d;
    cfg.attention.heads = heads;
    cfg.attention.causal = causal;
    cfg.attention.algorithm = algorithm == BenchAlgorithm::Tiled ? AttentionAlgorithm::Tiled : AttentionAlgorithm::Blocked;
    const double threads = double(num_threads());
    reset_peak_rss();  // this point's own peak, from here
    const double plain_bytes = double(heads) * double(n) * double(n) * sizeof(float);
    std::vector<float> weights;
    if (algorithm == BenchAlgorithm::Plain) {
        const double avail = available_memory_bytes();
        if (avail > 0 && plain_bytes > 0.9 * avail)
            throw Error("plain attention at n=" + std::to_string(n) + " needs " + gib(plain_bytes) +
                        " of scores, more than the " + gib(avail) + " available");
        weights.resize(std::size_t(plain_bytes / sizeof(float)));
    }
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
    float* w = weights.empty() ? nullptr : weights.data();
    pt.timing = time_it([&] { multihead_forward(mat(y.data(), n, d), w, xm, xm, xm, mask, cfg.attention, p, ws); }, opt);
    pt.peak_rss_mib = peak_rss_mib();
    pt.flops = multihead_flops(n, n, d, p);
    pt.gflops = pt.flops / pt.timing.min * 1e-9;
    pt.scores_bytes = algorithm == BenchAlgorithm::Plain   ? plain_bytes
                      : algorithm == BenchAlgorithm::Tiled ? threads * double(tiled_scratch_bytes(d, heads))
                                                           : threads * double(blocked_scratch_bytes(n));
    return pt;
}

}  // namespace tfm
