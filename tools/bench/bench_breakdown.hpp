// Where the time of the model goes: one encoder layer taken apart (projections, QK^T, softmax,
// PV, output projection, feed-forward, residual + LayerNorm) at a sequence length, and one
// decoding step with the key/value cache against recomputing the whole prefix.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "tfm/model/config.hpp"

namespace tfm {

struct LayerPart {
    std::string name;
    Timing timing;
    double flops = 0;  // 0 for the parts that are not products
};

// The parts of one post-norm encoder layer on [n,D], each timed on its own, in the order the
// layer runs them; the attention core is timed stage by stage on [H,n,n] scores.
std::vector<LayerPart> bench_encoder_layer_parts(std::size_t n, std::size_t d, std::size_t heads, std::size_t ffn,
                                                 const TimingOptions& opt);

struct DecodeStepPoint {
    std::size_t position = 0;  // the target position being produced
    Timing cached;             // one DecoderState step over a cache of `position` entries
    Timing recomputed;         // the decoder over the whole prefix (what decoding without a cache does)
};

// A random model of config c (one sentence of src_len source tokens): the cost of producing
// the token at each position with and without the cache.
std::vector<DecodeStepPoint> bench_decode_steps(const ModelConfig& c, std::size_t src_len,
                                                const std::vector<std::size_t>& positions, const TimingOptions& opt);

}  // namespace tfm
