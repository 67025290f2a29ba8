#include "tfm/training.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/decoder.hpp"
#include "tfm/dropout.hpp"
#include "tfm/embedding.hpp"
#include "tfm/error.hpp"
#include "tfm/parallel.hpp"

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

namespace {

// What one residual sublayer keeps: its input (pre-norm), the inner function's input, the
// LayerNorm's input (post-norm) and the key of its dropout mask (the mask is drawn again).
struct SublayerTrace {
    std::vector<float> x_in, inner_in, ln_in;
    DropoutMask mask;
};

// Rows [0, n) in blocks, in parallel: fn(first, end) on each block.
constexpr std::size_t kRowBlock = 32;
template <class F>
void for_row_blocks(std::size_t n, F&& fn) {
    parallel_blocks(n, kRowBlock, fn);
}

struct EncoderTrace {
    SublayerTrace att, ffn;
    MultiHeadSaved mha;
    std::vector<float> ffn_kept;  // what the feed-forward backward needs [N,F]
};

struct DecoderTrace {
    SublayerTrace self, cross, ffn;
    MultiHeadSaved self_mha, cross_mha;
    std::vector<float> ffn_kept;  // what the feed-forward backward needs [N,F]
};

}  // namespace

// Everything one training pass keeps, reused from batch to batch so that steady-state
// training allocates nothing.
class TrainingWorkspace::Pass {
public:
    LossStats run(const Model& m, Model* grads, const TrainOptions& opt, const TrainBatch& b) {
        m_ = &m;
        g_ = grads;
        opt_ = opt;
        dropout_calls_ = 0;
        return run(b);
    }

private:
    // Forward, loss and backward, in the order the data flows.
    LossStats run(const TrainBatch& b) {
        ns_ = b.src.batch * b.src.len;
        nt_ = b.tgt.batch * b.tgt.len;
        plan_attention(b);
        encoder_forward(b);
        decoder_forward(b);
        LossStats st = loss(b);
        if (!g_) return st;
        decoder_backward(b);
        encoder_backward(b);
        return st;
    }

    // Which rows attend to which: spans of the padded batch and the options of each attention.
    void plan_attention(const TrainBatch& b) {
        const ModelConfig& cfg = config();
        enc_opt_ = AttentionOptions{};
        enc_opt_.heads = cfg.encoder_heads;
        self_opt_ = cross_opt_ = AttentionOptions{};
        self_opt_.heads = cross_opt_.heads = cfg.decoder_heads;
        self_opt_.causal = true;
        enc_spans_.clear(), self_spans_.clear(), cross_spans_.clear();
        for (std::size_t i = 0; i < b.src.batch; ++i)
            enc_spans_.push_back({i * b.src.len, b.src.len, i * b.src.len, b.src.len, b.src.lengths[i], nullptr});
        for (std::size_t i = 0; i < b.tgt.batch; ++i) {
            self_spans_.push_back({i * b.tgt.len, b.tgt.len, i * b.tgt.len, b.tgt.len, b.tgt.len, nullptr});
            cross_spans_.push_back({i * b.tgt.len, b.tgt.len, i * b.src.len, b.src.len, b.src.lengths[i], nullptr});
        }
    }

    Mat memory() { return mat(x_.data(), ns_, config().d_model); }
    Mat decoder_states() { return mat(y_.data(), nt_, config().d_model); }

    void encoder_forward(const TrainBatch& b) {
        const Model& model = *m_;
        x_.resize(ns_ * config().d_model);
        embed_forward(memory(), b.src, model.source_embedding(), model.encoder_positions, enc_emb_mask_);
        enc_.resize(model.encoder.size());
        for (std::size_t l = 0; l < model.encoder.size(); ++l) {
            const EncoderLayer& L = model.encoder[l];
            EncoderTrace& t = enc_[l];
            sublayer_forward(x_, ns_, L.self_attn_ln, t.att, [&](Mat out, ConstMat in) {
                multihead_forward_train(out, in, in, in, enc_spans_, enc_opt_, L.self_attn, t.mha);
            });
            sublayer_forward(x_, ns_, L.final_ln, t.ffn, [&](Mat out, ConstMat in) {
                feedforward_forward(out, in, L.ffn, config().activation, hidden_, &t.ffn_kept);
            });
        }
        if (model.encoder_final_ln) final_forward(x_, ns_, *model.encoder_final_ln, enc_final_in_);
    }

    void decoder_forward(const TrainBatch& b) {
        const Model& model = *m_;
        y_.resize(nt_ * config().d_model);
        ConstMat mem = memory();
        embed_forward(decoder_states(), b.tgt, model.shared, model.decoder_positions, dec_emb_mask_);
        dec_.resize(model.decoder.size());
        for (std::size_t l = 0; l < model.decoder.size(); ++l) {
            const DecoderLayer& L = model.decoder[l];
            DecoderTrace& t = dec_[l];
            sublayer_forward(y_, nt_, L.self_attn_ln, t.self, [&](Mat out, ConstMat in) {
                multihead_forward_train(out, in, in, in, self_spans_, self_opt_, L.self_attn, t.self_mha);
            });
            sublayer_forward(y_, nt_, L.cross_attn_ln, t.cross, [&](Mat out, ConstMat in) {
                multihead_forward_train(out, in, mem, mem, cross_spans_, cross_opt_, L.cross_attn, t.cross_mha);
            });
            sublayer_forward(y_, nt_, L.final_ln, t.ffn, [&](Mat out, ConstMat in) {
                feedforward_forward(out, in, L.ffn, config().activation, hidden_, &t.ffn_kept);
            });
        }
        if (model.decoder_final_ln) final_forward(y_, nt_, *model.decoder_final_ln, dec_final_in_);
    }

    // logits [Nt,V] and, when training, d loss / d logits in their place (and the gradient of
    // final_logits_bias, their column sums).
    LossStats loss(const TrainBatch& b) {
        const std::size_t v = config().target_vocab(), d = config().d_model;
        logits_.resize(nt_ * v);
        const auto& w = m_->output_weight();
        gemm(mat(logits_.data(), nt_, v), decoder_states(), Op::N, mat(w.data(), v, d), Op::T);
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
        if (model.decoder_final_ln) final_backward(dy, *model.decoder_final_ln, *g.decoder_final_ln, dec_final_in_);
        dmem_.resize(ns_ * d);
        parallel_fill(dmem_.data(), dmem_.size());
        Mat dmem = mat(dmem_.data(), ns_, d);
        ConstMat mem = memory();
        for (std::size_t l = model.decoder.size(); l-- > 0;) {
            const DecoderLayer& L = model.decoder[l];
            DecoderLayer& G = g.decoder[l];
            DecoderTrace& t = dec_[l];
            sublayer_backward(dy, L.final_ln, G.final_ln, t.ffn, [&](Mat din, ConstMat dout, ConstMat in) {
                feedforward_backward(din, G.ffn, dout, in, t.ffn_kept, L.ffn, cfg.activation, hidden_);
            });
            sublayer_backward(dy, L.cross_attn_ln, G.cross_attn_ln, t.cross, [&](Mat din, ConstMat dout, ConstMat in) {
                multihead_backward(din, dmem, dmem, G.cross_attn, dout, in, mem, mem, t.cross_mha, cross_opt_, L.cross_attn);
            });
            sublayer_backward(dy, L.self_attn_ln, G.self_attn_ln, t.self, [&](Mat din, ConstMat dout, ConstMat in) {
                multihead_backward(din, din, din, G.self_attn, dout, in, in, in, t.self_mha, self_opt_, L.self_attn);
            });
        }
        embed_backward(dy, b.tgt, dec_emb_mask_, g.shared, g.decoder_positions);
    }

    // From dmem_ through the encoder.
    void encoder_backward(const TrainBatch& b) {
        const Model& model = *m_;
        Model& g = *g_;
        Mat dmem = mat(dmem_.data(), ns_, config().d_model);
        if (model.encoder_final_ln) final_backward(dmem, *model.encoder_final_ln, *g.encoder_final_ln, enc_final_in_);
        for (std::size_t l = model.encoder.size(); l-- > 0;) {
            const EncoderLayer& L = model.encoder[l];
            EncoderLayer& G = g.encoder[l];
            EncoderTrace& t = enc_[l];
            sublayer_backward(dmem, L.final_ln, G.final_ln, t.ffn, [&](Mat din, ConstMat dout, ConstMat in) {
                feedforward_backward(din, G.ffn, dout, in, t.ffn_kept, L.ffn, config().activation, hidden_);
            });
            sublayer_backward(dmem, L.self_attn_ln, G.self_attn_ln, t.att, [&](Mat din, ConstMat dout, ConstMat in) {
                multihead_backward(din, din, din, G.self_attn, dout, in, in, in, t.mha, enc_opt_, L.self_attn);
            });
        }
        embed_backward(dmem, b.src, enc_emb_mask_, g.source_embedding(), g.encoder_positions);
    }

    const Model* m_ = nullptr;
    Model* g_ = nullptr;
    TrainOptions opt_;
    std::uint64_t dropout_calls_ = 0;  // dropout masks drawn in this pass
    std::vector<EncoderTrace> enc_;
    std::vector<DecoderTrace> dec_;
    DropoutMask enc_emb_mask_, dec_emb_mask_;
    std::vector<float> enc_final_in_, dec_final_in_, hidden_;
    std::vector<float> x_, y_, logits_, dy_, dmem_, out_, dout_, din_;  // [Ns,D] [Nt,D] [Nt,V] (then d logits) ...
    std::size_t ns_ = 0, nt_ = 0;  // rows of the padded source and target batches
    AttentionOptions enc_opt_, self_opt_, cross_opt_;
    std::vector<SequenceSpan> enc_spans_, self_spans_, cross_spans_;
    const ModelConfig& config() const { return m_->config; }

    bool dropping() const { return g_ && opt_.dropout > 0.0f; }

    // The next dropout mask of the pass: mask number k uses dropout_key(seed, k), so the same
    // masks come out for any thread count; its key is all the backward pass keeps.
    DropoutMask next_mask() {
        const std::uint64_t call = dropout_calls_++;
        return dropping() ? DropoutMask{dropout_key(opt_.seed, call), opt_.dropout} : DropoutMask{};
    }

    // dst = src * mask (a copy without dropout), rows in parallel.
    static void masked_copy(float* dst, const float* src, std::size_t rows, std::size_t d, const DropoutMask& mask) {
        for_row_blocks(rows, [&](std::size_t r0, std::size_t r1) {
            dropout_apply(dst + r0 * d, src + r0 * d, (r1 - r0) * d, r0 * d, mask);
        });
    }

    void embed_forward(Mat x, const TokenBatch& b, const xt::xtensor<float, 2>& table,
                       const xt::xtensor<float, 2>& positions, DropoutMask& mask) {
        std::vector<std::size_t> pos(b.batch * b.len);
        for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = i % std::max<std::size_t>(b.len, 1);
        embed(x, b.ids.data(), pos.data(), table, positions, config().embed_scale());
        mask = next_mask();
        if (mask.active()) masked_copy(x.data, x.data, x.rows, x.cols, mask);
    }

    void embed_backward(Mat dx, const TokenBatch& b, const DropoutMask& mask, xt::xtensor<float, 2>& dtable,
                        xt::xtensor<float, 2>& dpos) {
        const std::size_t d = config().d_model;
        if (mask.active()) masked_copy(dx.data, dx.data, dx.rows, d, mask);
        const float scale = config().embed_scale();
        const bool learned = config().positions == PositionKind::Learned;
        for (std::size_t i = 0; i < dx.rows; ++i) {
            const float* r = dx.data + i * d;
            float* e = dtable.data() + std::size_t(b.ids[i]) * d;
            for (std::size_t j = 0; j < d; ++j) e[j] += scale * r[j];
            if (learned) {
                float* p = dpos.data() + (i % b.len) * d;
                for (std::size_t j = 0; j < d; ++j) p[j] += r[j];
            }
        }
    }

    // xv [N,D] = LN(xv), the input kept (its buffer handed over, not copied).
    void final_forward(std::vector<float>& xv, std::size_t n, const LayerNorm& ln, std::vector<float>& keep) {
        const std::size_t d = config().d_model;
        keep.swap(xv);
        xv.resize(n * d);
        layernorm_forward(mat(xv.data(), n, d), mat(keep.data(), n, d), ln);
    }

    void final_backward(Mat dx, const LayerNorm& ln, LayerNorm& g, const std::vector<float>& in) {
        layernorm_backward(dx, g, dx, mat(in.data(), dx.rows, dx.cols), ln);
    }

    // One residual sublayer over the running activations xv [N,D]: post-norm
    // xv = LN(x + drop(f(x))), pre-norm xv = x + drop(f(LN(x))). The input x is what the
    // backward pass needs: its buffer is handed to the trace (swapped, not copied) and xv
    // gets the trace's old one for the output.
    template <class F>
    void sublayer_forward(std::vector<float>& xv, std::size_t n, const LayerNorm& ln, SublayerTrace& t, F&& f) {
        const std::size_t d = config().d_model;
        const bool post = config().norm == NormPlacement::Post;
        std::vector<float>& x = post ? t.inner_in : t.x_in;
        x.swap(xv);
        xv.resize(n * d);
        if (!post) {
            t.inner_in.resize(n * d);
            layernorm_forward(mat(t.inner_in.data(), n, d), mat(x.data(), n, d), ln);
        }
        out_.resize(n * d);
        f(mat(out_.data(), n, d), mat(t.inner_in.data(), n, d));
        t.mask = next_mask();
        if (post) t.ln_in.resize(n * d);
        float* sum = post ? t.ln_in.data() : xv.data();  // x + drop(out)
        for_row_blocks(n, [&](std::size_t r0, std::size_t r1) {
            dropout_add(sum + r0 * d, x.data() + r0 * d, out_.data() + r0 * d, (r1 - r0) * d, r0 * d, t.mask);
        });
        if (post) layernorm_forward(mat(xv.data(), n, d), mat(t.ln_in.data(), n, d), ln);
    }

    // dx holds d(sublayer output) and becomes d(sublayer input).
    template <class B>
    void sublayer_backward(Mat dx, const LayerNorm& ln, LayerNorm& gln, const SublayerTrace& t, B&& fb) {
        const std::size_t n = dx.rows, d = dx.cols;
        if (config().norm == NormPlacement::Post) layernorm_backward(dx, gln, dx, mat(t.ln_in.data(), n, d), ln);
        dout_.resize(n * d);
        din_.resize(n * d);
        masked_copy(dout_.data(), dx.data, n, d, t.mask);
        parallel_fill(din_.data(), n * d);
        fb(mat(din_.data(), n, d), mat(dout_.data(), n, d), mat(t.inner_in.data(), n, d));
        if (config().norm == NormPlacement::Pre)
            layernorm_backward(mat(din_.data(), n, d), gln, mat(din_.data(), n, d), mat(t.x_in.data(), n, d), ln);
        for_row_blocks(n, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t i = r0 * d; i < r1 * d; ++i) dx.data[i] += din_[i];
        });
    }
};

TrainingWorkspace::TrainingWorkspace() : pass_(std::make_unique<Pass>()) {}
TrainingWorkspace::~TrainingWorkspace() = default;

LossStats forward_backward(const Model& m, const TrainBatch& batch, Model& grads, const TrainOptions& opt,
                           TrainingWorkspace& ws) {
    return ws.pass_->run(m, &grads, opt, batch);
}

LossStats evaluate_loss(const Model& m, const TrainBatch& batch, float label_smoothing, TrainingWorkspace& ws) {
    TrainOptions opt;
    opt.label_smoothing = label_smoothing;
    opt.dropout = 0.0f;
    return ws.pass_->run(m, nullptr, opt, batch);
}

}  // namespace tfm
