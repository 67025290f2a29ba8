// Pieces the encoder and decoder stacks share around their layers (model tier, internal to
// encoder.cpp and decoder.cpp): the embedding with its positions and dropout, the next dropout
// mask, the final LayerNorm of pre-norm models, each keeping what training's backward pass
// needs; and the backward passes of the embedding and the final LayerNorm.
#pragma once

#include <vector>

#include "tfm/nn/dropout.hpp"
#include "tfm/nn/layernorm.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/stack_trace.hpp"
#include "tfm/model/token_batch.hpp"
#include "tfm/nn/embedding.hpp"
#include "tfm/nn/feedforward.hpp"
#include "tfm/nn/multihead.hpp"

namespace tfm::stack {

// The next mask of the pass; inactive without a stream (inference).
inline DropoutMask next_mask(DropoutStream* dropout) { return dropout ? dropout->next() : DropoutMask{}; }
// The next mask on attention probabilities, kept in *keep (training) when given.
inline void next_attention_mask(DropoutStream* dropout, MultiHeadSaved* keep) {
    const DropoutMask m = dropout ? dropout->next_attention() : DropoutMask{};
    if (keep) keep->dropout = m;
}
// The next mask on the feed-forward's hidden layer.
inline DropoutMask next_activation_mask(DropoutStream* dropout) {
    return dropout ? dropout->next_activation() : DropoutMask{};
}

// x [N,D] (resized) = the rows of batch b embedded (token rows * the config's scale + their positions'
// rows; D = c.d_model), then dropped out; with trace, the positions and the mask are kept there.
template <class Trace>
void embed_batch(std::vector<float>& x, const TokenBatch& b, const ModelConfig& c, const EmbeddingRows& table,
                 const xt::xtensor<float, 2>& position_table, Trace* trace, DropoutStream* dropout);

// Dropout on the embedded rows x [N,D]: the mask is drawn (and kept in *kept) whenever a
// stream is given.
void embedding_dropout(std::vector<float>& x, std::size_t n, std::size_t d, DropoutMask* kept, DropoutStream* dropout);

// x [N,D] = LN(x); with kept, the input's buffer is handed there (not copied).
void final_norm(std::vector<float>& x, std::size_t n, const LayerNorm& ln, std::vector<float>* kept);

// The backward of embed_batch: dx [N,D] through the kept dropout mask (in place) into the
// token table's gradient dtable (scaled) and, with dpositions (learned positions), the
// position table's.
void embedding_backward(Mat dx, const TokenBatch& b, const std::vector<std::size_t>& positions, const DropoutMask& mask,
                        float scale, xt::xtensor<float, 2>& dtable, xt::xtensor<float, 2>* dpositions);

// The backward of final_norm, in place: dx [N,D] = d LN(in) / d in applied to dx; gradients
// of ln added to grad.
void final_norm_backward(Mat dx, const LayerNorm& ln, LayerNorm& grad, const std::vector<float>& in);

// The backward of a layer's feed-forward sublayer (either stack's layer and its trace), in
// place on dx [N,D]; gradients added to G.
template <class Layer, class LayerTrace>
void feedforward_sublayer_backward(Mat dx, const Layer& L, Layer& G, const LayerTrace& t, const ModelConfig& c,
                                   StackBackwardBuffers& buf) {
    residual_sublayer_backward(dx, L.final_ln, G.final_ln, c.norm, t.ffn, buf.sub, [&](Mat din, ConstMat dout, ConstMat in) {
        feedforward_backward(din, G.ffn, dout, in, t.ffn_kept, L.ffn, c.activation, buf.hidden, t.ffn_dropout);
    });
}

// The backward of a layer's self-attention sublayer (its trace st, saved), in place on dx.
template <class Layer>
void self_attention_sublayer_backward(Mat dx, const Layer& L, Layer& G, const SublayerTrace& st,
                                      const MultiHeadSaved& saved, const AttentionOptions& opt, NormPlacement norm,
                                      StackBackwardBuffers& buf) {
    residual_sublayer_backward(dx, L.self_attn_ln, G.self_attn_ln, norm, st, buf.sub, [&](Mat din, ConstMat dout, ConstMat in) {
        multihead_backward(din, din, din, G.self_attn, dout, in, in, in, saved, opt, L.self_attn);
    });
}

template <class Trace>
void embed_batch(std::vector<float>& x, const TokenBatch& b, const ModelConfig& c, const EmbeddingRows& table,
                 const xt::xtensor<float, 2>& position_table, Trace* trace, DropoutStream* dropout) {
    const std::size_t n = b.batch * b.len, d = c.d_model;
    x.resize(n * d);
    std::vector<std::size_t> local;
    std::vector<std::size_t>& positions = trace ? trace->positions : local;
    positions = c.positions == PositionKind::SinusoidalFairseq ? batch_positions(b, c.pad_id) : batch_positions(b);
    embed(mat(x.data(), n, d), b.ids.data(), positions.data(), table, position_table, c.embed_scale());
    embedding_dropout(x, n, d, trace ? &trace->embedding : nullptr, dropout);
}

}  // namespace tfm::stack
