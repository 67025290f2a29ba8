// Token sequences padded to the longest: the batch the encoder and the teacher-forced decoder
// take, with the attention spans and positions that follow from it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tfm/nn/embedding.hpp"
#include "tfm/nn/multihead.hpp"

namespace tfm {

// ids [B,S] row-major (pad_id after each length), lengths [B]. Sources for the encoder,
// targets for the teacher-forced decoder.
struct TokenBatch {
    std::size_t batch = 0, len = 0;  // B, S
    std::vector<std::int64_t> ids;   // [B,S]
    std::vector<std::size_t> lengths;
};

TokenBatch make_token_batch(const std::vector<std::vector<std::int64_t>>& seqs, std::int64_t pad_id);

// The position of every row of the batch: [B*S], row b*S+s is at s; or, with `counted_pad`
// (M2M100's positions), the count of the tokens before it in its row that are not that pad id,
// and kNoPosition for the pad tokens themselves: so padding on either side moves nothing.
std::vector<std::size_t> batch_positions(const TokenBatch& b, std::optional<std::int64_t> counted_pad = std::nullopt);

// Self-attention spans, one per sequence: its rows attend to its own first key_len rows
// (key_len = the sequence's length, or the whole padded length when `all_keys`, as causal
// decoder self-attention does: padding targets come last, and causality hides them).
std::vector<SequenceSpan> self_spans(const TokenBatch& b, bool all_keys = false);

// Encoder-decoder spans: sequence i of queries attends to the real tokens of source i.
std::vector<SequenceSpan> cross_spans(const TokenBatch& queries, const TokenBatch& sources);

}  // namespace tfm
