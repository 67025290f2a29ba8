// The attention benchmark: one multi-head self-attention layer (projections, QK^T, softmax,
// PV, output projection) on random [n,D] input, timed, with its FLOPs counted.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench.hpp"

namespace tfm {

// plain: every head's n x n probabilities materialised ([H,n,n], as a textbook or PyTorch
// does, and as --weights-out needs); blocked and tiled: attention.hpp's algorithms.
enum class BenchAlgorithm { Plain, Blocked, Tiled };
BenchAlgorithm parse_bench_algorithm(const std::string& name);  // plain | blocked | tiled
const char* bench_algorithm_name(BenchAlgorithm a);

struct AttentionBenchPoint {
    std::size_t n = 0, d = 0, heads = 0;
    Timing timing;
    double flops = 0;          // counted FLOPs of one forward pass
    double gflops = 0;         // flops / best time
    double scores_bytes = 0;   // what the algorithm holds of scores at once (all threads)
    double peak_rss_mib = 0;   // the process's peak resident memory while this point ran
};

// Plain attention whose [H,n,n] scores would not fit in the memory available is refused
// (Error naming both sizes) before anything is allocated.
AttentionBenchPoint bench_attention(std::size_t n, std::size_t d, std::size_t heads, bool causal,
                                    const TimingOptions& opt, BenchAlgorithm algorithm = BenchAlgorithm::Blocked);

// Bytes of memory the system can still give (MemAvailable), or 0 when unknown.
double available_memory_bytes();

}  // namespace tfm
