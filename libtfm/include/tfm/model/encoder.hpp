// The encoder stack: embeddings * sqrt(D) + positions, then N layers of self-attention and
// feed-forward, each wrapped in residual + LayerNorm, over a padded batch of sources. One
// forward for inference and training: a trace (training) keeps what the backward pass, written
// beside it, needs.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model/model.hpp"
#include "tfm/model/stack_trace.hpp"
#include "tfm/model/token_batch.hpp"
#include "tfm/nn/sublayer.hpp"

namespace tfm {

struct EncoderWorkspace {
    MultiHeadWorkspace attn;
    SublayerBuffers sub;
    std::vector<float> hidden;  // [B*S,F]
    std::vector<float> x;       // [B*S,D] the running activations
};

// Self-attention weights of chosen encoder layers, kept while encoding.
struct AttentionCapture {
    std::vector<std::size_t> layers;          // which layers (0-based)
    std::vector<std::vector<float>> weights;  // per entry of layers: [B,H,S,S]
};

// What a training forward keeps of one encoder layer, and of the whole encoder.
struct EncoderLayerTrace {
    SublayerTrace attention, ffn;
    MultiHeadSaved mha;
    std::vector<float> ffn_kept;  // what the feed-forward backward needs [N,F]
    DropoutMask ffn_dropout;      // on its hidden layer
};
using EncoderTrace = StackTrace<EncoderLayerTrace>;

// The options of the encoder's self-attention.
AttentionOptions encoder_attention(const ModelConfig& c);

// x [B*S,D] (resized) becomes the memory of src: row b*S+s is position s of source b (rows
// past its length are padding and never attended to). With trace, what the backward pass
// needs is kept there, and dropout masks come from dropout (null: none).
void encoder_stack(std::vector<float>& x, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                   AttentionCapture* capture = nullptr, EncoderTrace* trace = nullptr, DropoutStream* dropout = nullptr);

// The backward pass of encoder_stack over the trace of its forward: dx [B*S,D] holds d loss /
// d memory and is used up as the gradient walks down the stack; the gradients of the layers,
// the final LayerNorm, the source embedding (scaled) and learned positions are added to grads
// (a model of the same shape).
void encoder_stack_backward(Mat dx, const Model& m, const TokenBatch& src, const EncoderTrace& trace, Model& grads,
                            StackBackwardBuffers& buf);

// The layers of an encoder over x [B*S,D], the embedded rows of src: self-attention and
// feed-forward per layer (heads, norm placement and activation from c), then final_ln when
// given. encoder_stack's after its embedding, and BERT's (model/bert.hpp).
void encoder_layers(std::vector<float>& x, const ModelConfig& c, const std::vector<EncoderLayer>& layers,
                    const LayerNorm* final_ln, const TokenBatch& src, EncoderWorkspace& ws,
                    AttentionCapture* capture = nullptr, EncoderTrace* trace = nullptr, DropoutStream* dropout = nullptr);

// memory [B*S,D] for src (encoder_stack at inference).
void encoder_forward(xt::xtensor<float, 2>& memory, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                     AttentionCapture* capture = nullptr);

}  // namespace tfm
