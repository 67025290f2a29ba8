// The encoder stack: embeddings * sqrt(D) + positions, then N layers of self-attention and
// feed-forward, each wrapped in residual + LayerNorm, over a padded batch of sources.
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model.hpp"
#include "tfm/sublayer.hpp"

namespace tfm {

// Token sequences padded to the longest: ids [B,S] row-major (pad_id after each length),
// lengths [B]. Sources for the encoder, targets for the teacher-forced decoder.
struct TokenBatch {
    std::size_t batch = 0, len = 0;  // B, S
    std::vector<std::int64_t> ids;   // [B,S]
    std::vector<std::size_t> lengths;
};

TokenBatch make_token_batch(const std::vector<std::vector<std::int64_t>>& seqs, std::int64_t pad_id);

struct EncoderWorkspace {
    MultiHeadWorkspace attn;
    SublayerBuffers sub;
    std::vector<float> hidden;  // [B*S,F]
};

// Self-attention weights of chosen encoder layers, kept while encoding.
struct AttentionCapture {
    std::vector<std::size_t> layers;          // which layers (0-based)
    std::vector<std::vector<float>> weights;  // per entry of layers: [B,H,S,S]
};

// memory [B*S,D]: row b*S+s is position s of source b (rows past its length are padding and
// never attended to).
void encoder_forward(xt::xtensor<float, 2>& memory, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                     AttentionCapture* capture = nullptr);

}  // namespace tfm
