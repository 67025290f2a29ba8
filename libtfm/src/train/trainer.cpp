#include "tfm/train/trainer.hpp"

#include <chrono>

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/translator.hpp"

namespace tfm {

Trainer::Trainer(Model& model, const Corpus& train, const TrainerOptions& opt, Adam& adam, const TrainState& state)
    : model_(model), train_(train), opt_(opt), adam_(adam), state_(state), grads_(zeros_like(model)) {
    plan_epoch();
    if (state_.batch_in_epoch > batches_.size())
        throw Error("resume: the checkpoint is " + std::to_string(state_.batch_in_epoch) + " batches into an epoch of " +
                    std::to_string(batches_.size()) + " (other data or --batch-tokens?)");
}

void Trainer::plan_epoch() {
    // The order depends only on the seed and the epoch: a resumed run sees the same batches.
    batches_ = token_batches(train_.pairs, opt_.batch_tokens, state_.seed * 1000003ULL + state_.epoch);
}

TrainBatch Trainer::batch_of(const Corpus& c, const std::vector<std::size_t>& idx) const {
    std::vector<std::vector<std::int64_t>> src, tgt;
    for (std::size_t i : idx) {
        src.push_back(c.pairs[i].src);
        tgt.push_back(c.pairs[i].tgt);
    }
    return make_train_batch(src, tgt, model_.config);
}

StepReport Trainer::step() {
    const auto start = std::chrono::steady_clock::now();
    visit_parameters(grads_, [](const std::string&, float* p, std::size_t n) { parallel_fill(p, n); });
    StepReport r;
    for (std::size_t a = 0; a < opt_.accumulate; ++a) {
        if (state_.batch_in_epoch == batches_.size()) {
            ++state_.epoch;
            state_.batch_in_epoch = 0;
            plan_epoch();
        }
        TrainBatch b = batch_of(train_, batches_[state_.batch_in_epoch++]);
        TrainOptions lo = opt_.loss;
        lo.seed = state_.seed * 7919ULL + state_.step * 131ULL + a;  // dropout masks reproducible per update
        LossStats s = forward_backward(model_, b, grads_, lo, ws_);
        r.loss.smoothed += s.smoothed;
        r.loss.nll += s.nll;
        r.loss.tokens += s.tokens;
    }
    r.learning_rate = adam_.learning_rate();
    r.grad_norm = adam_.update(model_, grads_, 1.0 / double(std::max<std::size_t>(r.loss.tokens, 1)));
    ++state_.step;
    r.step = state_.step;
    r.epoch = state_.epoch;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

LossStats Trainer::evaluate(const Corpus& valid) {
    LossStats total;
    for (const auto& idx : token_batches(valid.pairs, opt_.batch_tokens, 1)) {
        LossStats s = evaluate_loss(model_, batch_of(valid, idx), opt_.loss.label_smoothing, ws_);
        total.smoothed += s.smoothed;
        total.nll += s.nll;
        total.tokens += s.tokens;
    }
    return total;
}

Bleu Trainer::evaluate_bleu(const Corpus& valid, const Tokenizer& tok) {
    std::vector<std::vector<std::int64_t>> sources;
    for (const auto& p : valid.pairs) sources.push_back(p.src);
    DecodeOptions opt;
    opt.search.beam = 1;
    auto hyps = translate_sources(model_, sources, opt);
    BleuStats stats;
    for (std::size_t i = 0; i < hyps.size(); ++i) stats.add(tok.decode(hyps[i].front().ids), valid.pairs[i].reference);
    return corpus_bleu(stats);
}

}  // namespace tfm
