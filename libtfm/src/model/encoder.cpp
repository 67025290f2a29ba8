#include "tfm/model/encoder.hpp"

#include <algorithm>

#include "tfm/nn/embedding.hpp"
#include "stack.hpp"

namespace tfm {

AttentionOptions encoder_attention(const ModelConfig& c) {
    AttentionOptions opt;
    opt.heads = c.encoder_heads;
    return opt;
}

void encoder_stack(std::vector<float>& xv, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                   AttentionCapture* capture, EncoderTrace* trace, DropoutStream* dropout) {
    const ModelConfig& c = m.config;
    stack::embed_batch(xv, src, c, m.source_embedding_rows(), m.encoder_positions, trace, dropout);
    encoder_layers(xv, c, m.encoder, m.encoder_final_ln ? &*m.encoder_final_ln : nullptr, src, ws, capture, trace,
                   dropout);
}

void encoder_layers(std::vector<float>& xv, const ModelConfig& c, const std::vector<EncoderLayer>& layers,
                    const LayerNorm* final_ln, const TokenBatch& src, EncoderWorkspace& ws, AttentionCapture* capture,
                    EncoderTrace* trace, DropoutStream* dropout) {
    const std::size_t b = src.batch, s = src.len, n = b * s;
    const AttentionOptions opt = encoder_attention(c);
    if (capture) capture->weights.resize(capture->layers.size());
    if (trace) trace->layers.resize(layers.size());
    std::vector<SequenceSpan> spans = self_spans(src);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const EncoderLayer& layer = layers[l];
        EncoderLayerTrace* t = trace ? &trace->layers[l] : nullptr;
        float* weights = nullptr;
        if (capture) {
            auto it = std::find(capture->layers.begin(), capture->layers.end(), l);
            if (it != capture->layers.end()) {
                auto& w = capture->weights[std::size_t(it - capture->layers.begin())];
                w.assign(b * opt.heads * s * s, 0.0f);
                weights = w.data();
            }
        }
        for (std::size_t i = 0; i < b; ++i) spans[i].weights = weights ? weights + i * opt.heads * s * s : nullptr;
        stack::next_attention_mask(dropout, t ? &t->mha : nullptr);
        residual_sublayer(xv, n, layer.self_attn_ln, c.norm, stack::next_mask(dropout), ws.sub,
                          t ? &t->attention : nullptr, [&](Mat out, ConstMat in) {
                              multihead_forward(out, in, in, in, spans, opt, layer.self_attn, ws.attn, t ? &t->mha : nullptr);
                          });
        const DropoutMask hidden_mask = stack::next_activation_mask(dropout);
        if (t) t->ffn_dropout = hidden_mask;
        residual_sublayer(xv, n, layer.final_ln, c.norm, stack::next_mask(dropout), ws.sub, t ? &t->ffn : nullptr,
                          [&](Mat out, ConstMat in) {
                              feedforward_forward(out, in, layer.ffn, c.activation, ws.hidden, t ? &t->ffn_kept : nullptr,
                                                  hidden_mask);
                          });
    }
    if (final_ln) stack::final_norm(xv, n, *final_ln, trace ? &trace->final_in : nullptr);
}

void encoder_stack_backward(Mat dx, const Model& m, const TokenBatch& src, const EncoderTrace& trace, Model& grads,
                            StackBackwardBuffers& buf) {
    const ModelConfig& c = m.config;
    if (m.encoder_final_ln) stack::final_norm_backward(dx, *m.encoder_final_ln, *grads.encoder_final_ln, trace.final_in);
    const AttentionOptions opt = encoder_attention(c);
    for (std::size_t l = m.encoder.size(); l-- > 0;) {
        const EncoderLayer& L = m.encoder[l];
        EncoderLayer& G = grads.encoder[l];
        const EncoderLayerTrace& t = trace.layers[l];
        stack::feedforward_sublayer_backward(dx, L, G, t, c, buf);
        stack::self_attention_sublayer_backward(dx, L, G, t.attention, t.mha, opt, c.norm, buf);
    }
    const bool learned = c.positions == PositionKind::Learned;
    stack::embedding_backward(dx, src, trace.positions, trace.embedding, c.embed_scale(), grads.source_embedding(),
                              learned ? &grads.encoder_positions : nullptr);
}

void encoder_forward(xt::xtensor<float, 2>& memory, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                     AttentionCapture* capture) {
    encoder_stack(ws.x, m, src, ws, capture);
    memory = xt::xtensor<float, 2>::from_shape({src.batch * src.len, m.config.d_model});
    std::copy(ws.x.begin(), ws.x.end(), memory.begin());
}

}  // namespace tfm
