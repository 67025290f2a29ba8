// The training benchmark: updates (forward, backward, Adam) of a randomly initialised model on
// random sentence pairs, as target tokens per second.
#pragma once

#include <cstddef>

#include "bench/bench.hpp"

namespace tfm {

struct TrainBenchOptions {
    std::size_t layers = 3, d_model = 256, heads = 4, ffn = 1024, vocab = 8000;
    std::size_t pairs = 128, length = 16;  // sentence pairs per update, tokens per side
    float dropout = 0.1f;
    TimingOptions timing{1, 5, 0.0};
};

struct TrainBenchPoint {
    Timing timing;                 // seconds per update
    std::size_t target_tokens = 0; // per update (labels, eos included)
    double tokens_per_s = 0;
    double peak_rss_mib = 0;
};

TrainBenchPoint bench_train(const TrainBenchOptions& opt);

}  // namespace tfm
