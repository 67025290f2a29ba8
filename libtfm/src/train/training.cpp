#include "tfm/train/training.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/model/decoder.hpp"
#include "tfm/nn/dropout.hpp"
#include "tfm/nn/embedding.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

TrainBatch make_train_batch(const std::vector<std::vector<std::int64_t>>& sources,
                            const std::vector<std::vector<std::int64_t>>& targets, const ModelConfig& c) {
    if (sources.size() != targets.size())
        throw Error("training batch: " + std::to_string(sources.size()) + " sources for " +
                    std::to_string(targets.size()) + " targets");
    TrainBatch b;
    b.src = make_token_batch(sources, c.pad_id);
    std::vector<std::vector<std::int64_t>> inputs;
    for (const auto& t : targets) {
        inputs.push_back({c.decoder_start_id});
        inputs.back().insert(inputs.back().end(), t.begin(), t.end());
    }
    b.tgt = make_token_batch(inputs, c.pad_id);
    b.labels.assign(b.tgt.batch * b.tgt.len, c.pad_id);
    for (std::size_t i = 0; i < targets.size(); ++i) {
        for (std::size_t j = 0; j < targets[i].size(); ++j) b.labels[i * b.tgt.len + j] = targets[i][j];
        b.labels[i * b.tgt.len + targets[i].size()] = c.eos_id;
        b.target_tokens += targets[i].size() + 1;
    }
    return b;
}

// Everything one training pass keeps, reused from batch to batch so that steady-state
// training allocates nothing. The forward is the model's own (encoder_stack, decoder_stack,
// output_logits) with traces and dropout; the backward walks the traces in reverse.
class TrainingWorkspace::Pass {
public:
    LossStats run(const Model& m, Model* grads, const TrainOptions& opt, const TrainBatch& b) {
        m_ = &m;
        g_ = grads;
        opt_ = opt;
        ns_ = b.src.batch * b.src.len;
        nt_ = b.tgt.batch * b.tgt.len;
        // Dropout only when there is a backward pass to train.
        DropoutStream dropout = grads ? DropoutStream(opt.seed, opt.dropout, opt.attention_dropout, opt.activation_dropout)
                                      : DropoutStream();
        encoder_stack(x_, m, b.src, enc_ws_, nullptr, &enc_, &dropout);
        decoder_stack(y_, m, b.src, memory(), b.tgt, dec_ws_, &dec_, &dropout);
        LossStats st = loss(b);
        if (!g_) return st;
        decoder_backward(b);
        encoder_backward(b);
        return st;
    }

    // The logits z = projection + bias of the last forward, as the loss saw them.
    xt::xtensor<float, 2> logits() const {
        const std::size_t v = m_ ? m_->config.target_vocab() : 0;
        xt::xtensor<float, 2> z = xt::xtensor<float, 2>::from_shape({nt_, v});
        for (std::size_t i = 0; i < nt_; ++i)
            for (std::size_t j = 0; j < v; ++j) z(i, j) = logits_[i * v + j] + m_->final_logits_bias(j);
        return z;
    }

private:
    Mat memory() { return mat(x_.data(), ns_, config().d_model); }
    Mat decoder_states() { return mat(y_.data(), nt_, config().d_model); }

    // The output projection [Nt,V] (the loss adds final_logits_bias as it reads each row: one
    // pass less over [Nt,V]) and, when training, d loss / d logits in its place (and the
    // gradient of final_logits_bias, their column sums).
    LossStats loss(const TrainBatch& b) {
        const std::size_t v = config().target_vocab();
        logits_.resize(nt_ * v);
        output_projection(mat(logits_.data(), nt_, v), decoder_states(), *m_);
        return smoothed_cross_entropy(mat(logits_.data(), nt_, v), b.labels, config().pad_id, opt_.label_smoothing,
                                      g_ ? logits_.data() : nullptr, m_->final_logits_bias.data(),
                                      g_ ? g_->final_logits_bias.data() : nullptr);
    }

    // From d logits through the output projection and the decoder; fills dmem_.
    void decoder_backward(const TrainBatch& b) {
        const Model& model = *m_;
        const ModelConfig& cfg = config();
        Model& g = *g_;
        const std::size_t d = cfg.d_model, v = cfg.target_vocab();
        dy_.resize(nt_ * d);
        Mat dy = mat(dy_.data(), nt_, d);
        ConstMat dlogits = mat(logits_.data(), nt_, v);
        const auto& w_out = model.output_weight();
        auto& gw_out = cfg.tie_word_embeddings ? g.shared : g.lm_head;
        gemm(dy, dlogits, Op::N, mat(w_out.data(), v, d), Op::N);
        gemm(mat(gw_out.data(), v, d), dlogits, Op::T, decoder_states(), Op::N, 1.0f, 1.0f);
        if (model.decoder_final_ln) final_backward(dy, *model.decoder_final_ln, *g.decoder_final_ln, dec_.final_in);
        dmem_.resize(ns_ * d);
        parallel_fill(dmem_.data(), dmem_.size());
        Mat dmem = mat(dmem_.data(), ns_, d);
        ConstMat mem = memory();
        const AttentionOptions self_opt = decoder_self_attention(cfg), cross_opt = decoder_cross_attention(cfg);
        for (std::size_t l = model.decoder.size(); l-- > 0;) {
            const DecoderLayer& L = model.decoder[l];
            DecoderLayer& G = g.decoder[l];
            DecoderLayerTrace& t = dec_.layers[l];
            residual_sublayer_backward(dy, L.final_ln, G.final_ln, cfg.norm, t.ffn, sub_, [&](Mat din, ConstMat dout, ConstMat in) {
                feedforward_backward(din, G.ffn, dout, in, t.ffn_kept, L.ffn, cfg.activation, hidden_,
                                     t.ffn_dropout);
            });
            residual_sublayer_backward(dy, L.cross_attn_ln, G.cross_attn_ln, cfg.norm, t.cross, sub_,
                                       [&](Mat din, ConstMat dout, ConstMat in) {
                                           multihead_backward(din, dmem, dmem, G.cross_attn, dout, in, mem, mem,
                                                              t.cross_mha, cross_opt, L.cross_attn);
                                       });
            residual_sublayer_backward(dy, L.self_attn_ln, G.self_attn_ln, cfg.norm, t.self, sub_,
                                       [&](Mat din, ConstMat dout, ConstMat in) {
                                           multihead_backward(din, din, din, G.self_attn, dout, in, in, in, t.self_mha,
                                                              self_opt, L.self_attn);
                                       });
        }
        embedding_backward(dy, b.tgt, dec_.embedding, g.shared, g.decoder_positions);
    }

    // From dmem_ through the encoder.
    void encoder_backward(const TrainBatch& b) {
        const Model& model = *m_;
        const ModelConfig& cfg = config();
        Model& g = *g_;
        Mat dmem = mat(dmem_.data(), ns_, cfg.d_model);
        if (model.encoder_final_ln) final_backward(dmem, *model.encoder_final_ln, *g.encoder_final_ln, enc_.final_in);
        const AttentionOptions opt = encoder_attention(cfg);
        for (std::size_t l = model.encoder.size(); l-- > 0;) {
            const EncoderLayer& L = model.encoder[l];
            EncoderLayer& G = g.encoder[l];
            EncoderLayerTrace& t = enc_.layers[l];
            residual_sublayer_backward(dmem, L.final_ln, G.final_ln, cfg.norm, t.ffn, sub_,
                                       [&](Mat din, ConstMat dout, ConstMat in) {
                                           feedforward_backward(din, G.ffn, dout, in, t.ffn_kept, L.ffn, cfg.activation,
                                                                hidden_, t.ffn_dropout);
                                       });
            residual_sublayer_backward(dmem, L.self_attn_ln, G.self_attn_ln, cfg.norm, t.attention, sub_,
                                       [&](Mat din, ConstMat dout, ConstMat in) {
                                           multihead_backward(din, din, din, G.self_attn, dout, in, in, in, t.mha, opt,
                                                              L.self_attn);
                                       });
        }
        embedding_backward(dmem, b.src, enc_.embedding, g.source_embedding(), g.encoder_positions);
    }

    // Through the embedding's dropout into the token table (scaled) and learned positions.
    void embedding_backward(Mat dx, const TokenBatch& b, const DropoutMask& mask, xt::xtensor<float, 2>& dtable,
                            xt::xtensor<float, 2>& dpos) {
        if (mask.active()) dropout_rows(dx.data, dx.data, dx.rows, dx.cols, mask);
        const std::vector<std::size_t> positions = batch_positions(b);
        const bool learned = config().positions == PositionKind::Learned;
        embed_backward(dx, b.ids.data(), positions.data(), config().embed_scale(), dtable, learned ? &dpos : nullptr);
    }

    void final_backward(Mat dx, const LayerNorm& ln, LayerNorm& g, const std::vector<float>& in) {
        layernorm_backward(dx, g, dx, mat(in.data(), dx.rows, dx.cols), ln);
    }

    const ModelConfig& config() const { return m_->config; }

    const Model* m_ = nullptr;
    Model* g_ = nullptr;
    TrainOptions opt_;
    EncoderTrace enc_;
    DecoderTrace dec_;
    EncoderWorkspace enc_ws_;
    DecoderWorkspace dec_ws_;
    SublayerBuffers sub_;
    std::vector<float> hidden_;
    std::vector<float> x_, y_, logits_, dy_, dmem_;  // [Ns,D] [Nt,D] [Nt,V] (then d logits) [Nt,D] [Ns,D]
    std::size_t ns_ = 0, nt_ = 0;  // rows of the padded source and target batches
};

TrainingWorkspace::TrainingWorkspace() : pass_(std::make_unique<Pass>()) {}
TrainingWorkspace::~TrainingWorkspace() = default;

xt::xtensor<float, 2> TrainingWorkspace::logits() const { return pass_->logits(); }

LossStats forward_backward(const Model& m, const TrainBatch& batch, Model& grads, const TrainOptions& opt,
                           TrainingWorkspace& ws) {
    return ws.pass_->run(m, &grads, opt, batch);
}

LossStats evaluate_loss(const Model& m, const TrainBatch& batch, float label_smoothing, TrainingWorkspace& ws) {
    TrainOptions opt;
    opt.label_smoothing = label_smoothing;
    opt.dropout = opt.attention_dropout = opt.activation_dropout = 0.0f;
    return ws.pass_->run(m, nullptr, opt, batch);
}

}  // namespace tfm
