// What every attention implementation takes: the options (heads, mask, scaling, how scores
// are held) and one sequence's views (attention.hpp, tiled_attention.hpp,
// additive_attention.hpp and multihead.hpp all speak these).
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/base/gemm.hpp"
#include "tfm/nn/dropout.hpp"

namespace tfm {

// How scores are held: Blocked keeps one block of kQueryBlock query rows against all keys per
// thread (an exact softmax, kQueryBlock*Tk floats); Tiled also splits the keys and computes the softmax
// online (tiled_attention.hpp: scratch independent of Tk); Auto is Blocked unless its block
// would pass kScoreScratchBudget bytes. Weights [H,Tq,Tk] asked for are always materialised.
enum class AttentionAlgorithm { Auto, Blocked, Tiled };
constexpr std::size_t kQueryBlock = 128;
constexpr std::size_t kScoreScratchBudget = std::size_t(64) << 20;

struct AttentionOptions {
    std::size_t heads = 1;  // H
    bool causal = false;
    bool scaled = true;     // multiply scores by 1/sqrt(K); false: unscaled dot product
    AttentionAlgorithm algorithm = AttentionAlgorithm::Auto;
};

// Per-head size D/H, or an Error naming both numbers when H does not divide D.
std::size_t head_size(std::size_t d, std::size_t heads);

// out [n] (resized) = the mean over heads h < `heads` of the rows w + h * stride: the first
// heads of attention weights [H,...] averaged (what alignments are read from).
void mean_of_heads(std::vector<float>& out, const float* w, std::size_t heads, std::size_t stride, std::size_t n);

// One sequence: q [Tq,D], k [Tk,D], v [Tk,Dv] -> out [Tq,Dv]; weights [H,Tq,Tk] (contiguous)
// or nullptr; keys j >= key_len are padding. Views may be strided (caches, batches).
// Training may drop attention probabilities out: the values are weighted by P o M, where M is
// `dropout` at indices dropout_first + (h*Tq + i)*Tk + j; the weights kept are P itself.
struct AttentionItem {
    ConstMat q, k, v;
    Mat out;
    float* weights = nullptr;
    std::size_t key_len = 0;
    DropoutMask dropout;
    std::size_t dropout_first = 0;
};

}  // namespace tfm
