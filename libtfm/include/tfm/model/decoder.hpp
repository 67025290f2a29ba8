// The decoder stack: masked self-attention, encoder-decoder attention and feed-forward per
// layer, then the output projection (+ final_logits_bias). The layers are written once and
// run two ways: over whole target sequences (teacher forcing: training, scoring, tests; with a
// trace, keeping what the backward pass, written beside it, needs) and one step at a time (DecoderState: search),
// where each layer's self-attention keys and values are cached and the memory's are projected
// once per batch, so a step never recomputes the prefix.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model/model.hpp"
#include "tfm/model/stack_trace.hpp"
#include "tfm/model/token_batch.hpp"
#include "tfm/nn/sublayer.hpp"

namespace tfm {

struct DecoderWorkspace {
    MultiHeadWorkspace attn;
    SublayerBuffers sub;
    std::vector<float> hidden;
    std::vector<float> x;  // [N,D] the running activations
};

// What a training forward keeps of one decoder layer, and of the whole decoder.
struct DecoderLayerTrace {
    SublayerTrace self, cross, ffn;
    MultiHeadSaved self_mha, cross_mha;
    std::vector<float> ffn_kept;  // what the feed-forward backward needs [N,F]
    DropoutMask ffn_dropout;      // on its hidden layer
};
using DecoderTrace = StackTrace<DecoderLayerTrace>;

// The options of the decoder's (causal) self-attention and of its encoder-decoder attention.
AttentionOptions decoder_self_attention(const ModelConfig& c);
AttentionOptions decoder_cross_attention(const ModelConfig& c);

// The encoder-decoder attention of one decoder layer, kept by decoder_stack: weights
// [B,H,T,S] (zero past each source's length).
struct CrossAttentionCapture {
    std::size_t layer = 0;
    std::vector<float> weights;
};

// y [B*T,D] (resized): the decoder's final states for inputs tgt [B,T] (each starting with
// the decoder start id) over memory [B*S,D] of sources src, before the output projection.
// With trace, what the backward pass needs is kept there and dropout masks come from dropout;
// with cross, that layer's encoder-decoder attention is kept there.
void decoder_stack(std::vector<float>& y, const Model& m, const TokenBatch& src, ConstMat memory, const TokenBatch& tgt,
                   DecoderWorkspace& ws, DecoderTrace* trace = nullptr, DropoutStream* dropout = nullptr,
                   CrossAttentionCapture* cross = nullptr);

// The backward pass of decoder_stack over the trace of its forward: dy [B*T,D] holds d loss /
// d y and is used up as the gradient walks down the stack; d loss / d memory is added to dmem
// [B*S,D], the gradients of the layers, the final LayerNorm, the target embedding (scaled; in
// `shared`) and learned positions to grads (a model of the same shape).
void decoder_stack_backward(Mat dy, Mat dmem, const Model& m, const TokenBatch& src, ConstMat memory,
                            const TokenBatch& tgt, const DecoderTrace& trace, Model& grads, StackBackwardBuffers& buf);

// logits [B*T,V] (before softmax) for decoder inputs tgt [B,T] over memory [B*S,D] of src.
void decoder_forward(xt::xtensor<float, 2>& logits, const Model& m, const TokenBatch& src,
                     const xt::xtensor<float, 2>& memory, const TokenBatch& tgt, DecoderWorkspace& ws);

// y [N,V] = x [N,D] W_out^T + final_logits_bias: output_projection, then the bias added.
void output_logits(Mat y, ConstMat x, const Model& m);
// y [N,V] = x [N,D] W_out^T, without the bias (training's loss adds it as it reads each row;
// the sum rounds the same either way).
void output_projection(Mat y, ConstMat x, const Model& m);

// The backward of output_projection: dx [N,D] = dlogits [N,V] W_out, and dlogits^T x added to
// the output weight's gradient (lm_head, or the shared table when tied).
void output_projection_backward(Mat dx, ConstMat dlogits, ConstMat x, const Model& m, Model& grads);

// In place, row by row: the pad id set to -inf (never generated), then log-softmax: the
// distribution over the other tokens, as Marian computes it (its vocabularies have no pad;
// transformers normalises over the pad it appends too, a difference of log(1 - p(pad))).
void log_softmax_rows(Mat logits, std::int64_t masked_id);

// Incremental decoding over the memory of a batch of sources. Rows are live hypotheses;
// row i starts as source i. (decode/model_steps.hpp adapts it to search.)
class DecoderState {
public:
    // memory [B*S,D] for src; at most max_steps steps will be taken.
    DecoderState(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src, std::size_t max_steps);
    ~DecoderState();

    std::size_t vocab() const;
    // logprobs [N,V]: log-probabilities of the next token after tokens [N] (one per row).
    void step(const std::vector<std::int64_t>& tokens, Mat logprobs);
    // From the next step on, only the target ids `ids` (sorted, distinct; a vocabulary
    // shortlist) are computed: the output layer multiplies their rows alone (packed in the
    // model's compute type when it has one), the distribution is over them, every other entry
    // of logprobs is -inf. Empty: the whole vocabulary again.
    void restrict_output(std::vector<std::int64_t> ids);
    // Row i of the next step continues row rows[i] of this one.
    void select(const std::vector<std::size_t>& rows);

    // From the next step on, keep the encoder-decoder attention of decoder layer `layer`,
    // averaged over its first `heads` heads (0: all): what alignments are read from.
    void keep_attention(std::size_t layer, std::size_t heads);
    bool keeps_attention() const;
    // After a step: row r's kept attention over its source's tokens [S_r] (out is resized).
    void attention(std::size_t row, std::vector<float>& out) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tfm
