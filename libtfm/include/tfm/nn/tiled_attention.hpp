// Scaled dot-product attention that never holds a row of scores: for each (sequence, head,
// block of queries) the keys are visited in blocks, with the softmax computed online (a
// running row maximum and sum rescale what was accumulated so far, as FlashAttention does).
// Same result as dot_product_attention (attention.hpp) to float rounding, with O(block^2)
// scratch per thread whatever the sequence length. No attention weights: the caller who
// wants them needs the [H,Tq,Tk] probabilities anyway.
#pragma once

#include <vector>

#include "tfm/nn/attention_types.hpp"

namespace tfm {

// items as for dot_product_attention (weights must be nullptr); opt.heads, causal, scaled.
void tiled_attention(const std::vector<AttentionItem>& items, const AttentionOptions& opt);

// Bytes of scratch the blocked dot_product_attention uses per thread for Tk keys (one block of
// score rows) and what the tiled one uses, to choose by a memory budget.
std::size_t blocked_scratch_bytes(std::size_t tk);
std::size_t tiled_scratch_bytes(std::size_t dv, std::size_t heads);

}  // namespace tfm
