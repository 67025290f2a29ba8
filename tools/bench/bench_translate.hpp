// The translation benchmark: a randomly initialised model of a preset translating random
// sources, timed end to end (encoder + search), as target tokens per second.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench.hpp"
#include "tfm/model/config.hpp"

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
    std::size_t steps = 0;           // decoding steps of a run (output_len)
    double product_flops = 0;        // translate_product_flops of the run
    std::size_t target_tokens = 0;   // generated per run (the best hypothesis of each sentence)
    double sentences_per_s = 0, tokens_per_s = 0;
    double peak_rss_mib = 0;         // of this process so far
};

// Every hypothesis is exactly output_len tokens (eos blocked before, limit at it), so runs
// compare with any engine given the same workload.
TranslateBenchPoint bench_translate(const TranslateBenchOptions& opt);

// The FLOPs (2 per multiply-add) of a run's matrix products, the work a GEMM peak bounds: B =
// sentences of S tokens, N = B * beam rows decoding T = output_len steps, widths D and F,
// V' output columns (V, or the shortlist's K):
//   encoder, per layer and sentence:  4*2*S*D^2 (Q K V O) + 2*2*S^2*D (scores, sums) + 2*2*S*D*F
//   memory keys and values, per decoder layer and sentence: 2*2*S*D^2
//   step t = 1..T, per decoder layer: 4*2*N*D^2 + 2*2*N*t*D (self-attention over t keys)
//                                     + 2*2*N*D^2 (cross Q O) + 2*2*N*S*D + 2*2*N*D*F
//   step t, the output layer: 2*N*D*V'
double translate_product_flops(const ModelConfig& c, const TranslateBenchOptions& opt);


}  // namespace tfm
