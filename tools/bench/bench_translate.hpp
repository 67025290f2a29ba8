// The translation benchmark: a randomly initialised model of a preset translating random
// sources, timed end to end (encoder + search), as target tokens per second.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench.hpp"

namespace tfm {

struct TranslateBenchOptions {
    std::string preset = "base";
    std::size_t vocab = 8000, sentences = 32, source_len = 20, output_len = 24, beam = 1;
    // float32 | bfloat16 | int8: weights packed in that type (as the tools run); "unpacked":
    // fp32 through sgemm on the weights as stored (as training runs).
    std::string compute = "float32";
    // The preset's shape overridden where not 0 (NLLB-600M: 12 layers, d 1024, 16 heads, FFN
    // 4096, vocabulary 256,206).
    std::size_t layers = 0, d_model = 0, heads = 0, ffn = 0;
    // Not 0: a vocabulary shortlist of the first `shortlist` target ids (Shortlist::first).
    std::size_t shortlist = 0;
    TimingOptions timing{1, 3, 0.0};
};

struct TranslateBenchPoint {
    Timing timing;
    std::size_t target_tokens = 0;   // generated per run (the best hypothesis of each sentence)
    double sentences_per_s = 0, tokens_per_s = 0;
    double peak_rss_mib = 0;         // of this process so far
};

// Every hypothesis is exactly output_len tokens (eos blocked before, limit at it), so runs
// compare with any engine given the same workload.
TranslateBenchPoint bench_translate(const TranslateBenchOptions& opt);


}  // namespace tfm
