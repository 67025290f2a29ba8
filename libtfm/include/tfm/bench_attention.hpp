// The attention benchmark: one multi-head self-attention layer (projections, QK^T, softmax,
// PV, output projection) on random [n,D] input, timed, with its FLOPs counted.
#pragma once

#include <cstddef>

#include "tfm/bench.hpp"

namespace tfm {

struct AttentionBenchPoint {
    std::size_t n = 0, d = 0, heads = 0;
    Timing timing;
    double flops = 0;          // counted FLOPs of one forward pass
    double gflops = 0;         // flops / best time
    double scores_bytes = 0;   // the largest intermediate: one head's n x n scores
};

AttentionBenchPoint bench_attention(std::size_t n, std::size_t d, std::size_t heads, bool causal,
                                    const TimingOptions& opt);

}  // namespace tfm
