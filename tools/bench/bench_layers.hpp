// The paper's Table 1, measured: self-attention against a recurrent layer, a convolution and
// restricted self-attention, each on [n,d] -> [n,d], timed with its FLOPs counted and the
// table's theoretical columns beside it.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench.hpp"

namespace tfm {

enum class LayerKind { SelfAttention, Recurrent, Convolution, Restricted };

struct LayerTheory {
    const char* name;        // "self-attention", "recurrent", "convolutional", "restricted"
    const char* complexity;  // per layer: "n^2·d", "n·d^2", "k·n·d^2", "r·n·d"
    const char* sequential;  // sequential operations: "1" or "n"
    const char* path;        // maximum path length: "1", "n", "log_k(n)", "n/r"
};
LayerTheory layer_theory(LayerKind kind);
LayerKind parse_layer_kind(const std::string& name);  // the names above (UsageError otherwise)

struct LayerBenchOptions {
    std::size_t heads = 8;    // self-attention and restricted
    std::size_t kernel = 3;   // convolution k
    std::size_t window = 64;  // restricted r
    TimingOptions timing;
};

struct LayerBenchPoint {
    Timing timing;
    double flops = 0, gflops = 0;
};

// Self-attention is the attention itself (Q = K = V = x, no projections: Table 1's
// per-layer cost); the recurrent layer is h_t = tanh(W x_t + U h_{t-1} + b).
LayerBenchPoint bench_layer(LayerKind kind, std::size_t n, std::size_t d, const LayerBenchOptions& opt);

}  // namespace tfm
