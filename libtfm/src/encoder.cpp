#include "tfm/encoder.hpp"

#include <algorithm>

#include "tfm/embedding.hpp"
#include "tfm/error.hpp"

namespace tfm {

TokenBatch make_token_batch(const std::vector<std::vector<std::int64_t>>& seqs, std::int64_t pad_id) {
    TokenBatch b;
    b.batch = seqs.size();
    for (const auto& s : seqs) b.len = std::max(b.len, s.size());
    b.ids.assign(b.batch * b.len, pad_id);
    for (std::size_t i = 0; i < b.batch; ++i) {
        std::copy(seqs[i].begin(), seqs[i].end(), b.ids.begin() + long(i * b.len));
        b.lengths.push_back(seqs[i].size());
    }
    return b;
}

void encoder_forward(xt::xtensor<float, 2>& memory, const Model& m, const TokenBatch& src, EncoderWorkspace& ws,
                     AttentionCapture* capture) {
    const ModelConfig& c = m.config;
    const std::size_t b = src.batch, s = src.len, d = c.d_model, n = b * s;
    memory = xt::xtensor<float, 2>::from_shape({n, d});
    Mat x = mat(memory.data(), n, d);
    std::vector<std::size_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) positions[i] = i % std::max<std::size_t>(s, 1);
    embed(x, src.ids.data(), positions.data(), m.source_embedding(), m.encoder_positions, c.embed_scale());

    AttentionOptions opt;
    opt.heads = c.encoder_heads;
    if (capture) capture->weights.resize(capture->layers.size());
    std::vector<SequenceSpan> spans(b);
    for (std::size_t l = 0; l < m.encoder.size(); ++l) {
        const EncoderLayer& layer = m.encoder[l];
        float* weights = nullptr;
        if (capture) {
            auto it = std::find(capture->layers.begin(), capture->layers.end(), l);
            if (it != capture->layers.end()) {
                auto& w = capture->weights[std::size_t(it - capture->layers.begin())];
                w.assign(b * opt.heads * s * s, 0.0f);
                weights = w.data();
            }
        }
        for (std::size_t i = 0; i < b; ++i)
            spans[i] = {i * s, s, i * s, s, src.lengths[i], weights ? weights + i * opt.heads * s * s : nullptr};
        residual_sublayer(x, layer.self_attn_ln, c.norm, ws.sub, [&](Mat out, ConstMat in) {
            multihead_forward(out, in, in, in, spans, opt, layer.self_attn, ws.attn);
        });
        residual_sublayer(x, layer.final_ln, c.norm, ws.sub, [&](Mat out, ConstMat in) {
            feedforward_forward(out, in, layer.ffn, c.activation, ws.hidden);
        });
    }
    if (m.encoder_final_ln) layernorm_forward(x, x, *m.encoder_final_ln);
}

}  // namespace tfm
