#include "tfm/train/training.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/model/decoder.hpp"
#include "tfm/nn/dropout.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/gemm.hpp"
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
// output_projection) with traces and dropout; the backward is theirs too (written beside each
// forward in model/), walking the traces in reverse.
class TrainingWorkspace::Pass {
public:
    LossStats run(const Model& m, Model* grads, const TrainOptions& opt, const TrainBatch& b) {
        m_ = &m;
        g_ = grads;
        opt_ = opt;
        ns_ = b.src.batch * b.src.len;
        nt_ = b.tgt.batch * b.tgt.len;
        const ProductPrecision precision(opt.compute);
        // Dropout only when there is a backward pass to train.
        DropoutStream dropout = grads ? DropoutStream(opt.seed, opt.dropout, opt.attention_dropout, opt.activation_dropout)
                                      : DropoutStream();
        encoder_stack(x_, m, b.src, enc_ws_, nullptr, &enc_, &dropout);
        decoder_stack(y_, m, b.src, memory(), b.tgt, dec_ws_, &dec_, &dropout);
        LossStats st = loss(b);
        if (g_) backward(b);
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

    // From d logits through the output projection and the decoder into dmem_, then through
    // the encoder.
    void backward(const TrainBatch& b) {
        const std::size_t d = config().d_model, v = config().target_vocab();
        dy_.resize(nt_ * d);
        Mat dy = mat(dy_.data(), nt_, d);
        output_projection_backward(dy, mat(logits_.data(), nt_, v), decoder_states(), *m_, *g_);
        dmem_.resize(ns_ * d);
        parallel_fill(dmem_.data(), dmem_.size());
        Mat dmem = mat(dmem_.data(), ns_, d);
        decoder_stack_backward(dy, dmem, *m_, b.src, memory(), b.tgt, dec_, *g_, buf_);
        encoder_stack_backward(dmem, *m_, b.src, enc_, *g_, buf_);
    }

    const ModelConfig& config() const { return m_->config; }

    const Model* m_ = nullptr;
    Model* g_ = nullptr;
    TrainOptions opt_;
    EncoderTrace enc_;
    DecoderTrace dec_;
    EncoderWorkspace enc_ws_;
    DecoderWorkspace dec_ws_;
    StackBackwardBuffers buf_;
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
