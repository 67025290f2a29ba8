// The training benchmark: updates (forward, backward, Adam) of a randomly initialised model on
// random sentence pairs, as target tokens per second.
#pragma once

#include <cstddef>

#include "bench/bench.hpp"
#include "tfm/base/compute_type.hpp"

namespace tfm {

struct TrainBenchOptions {
    std::size_t layers = 3, d_model = 256, heads = 4, ffn = 1024, vocab = 8000;
    std::size_t pairs = 128, length = 16;  // sentence pairs per update, tokens per side
    float dropout = 0.1f;
    ComputeType compute = ComputeType::Float32;  // of the products (training.hpp)
    TimingOptions timing{1, 5, 0.0};
};

struct TrainBenchPoint {
    Timing timing;                 // seconds per update
    std::size_t target_tokens = 0; // per update (labels, eos included)
    double tokens_per_s = 0;
    double product_gflops = 0;     // the update's gemm products (2*M*N*K each) per second of the update
    double peak_rss_mib = 0;
};

TrainBenchPoint bench_train(const TrainBenchOptions& opt);

}  // namespace tfm
