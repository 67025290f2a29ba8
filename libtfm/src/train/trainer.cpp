#include "tfm/train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>

#include "tfm/base/compute_type.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/parameter_spans.hpp"
#include "tfm/train/tree_sum.hpp"

namespace tfm {

namespace {

void add_loss(LossStats& into, const LossStats& s) {
    into.smoothed += s.smoothed;
    into.nll += s.nll;
    into.tokens += s.tokens;
}

}  // namespace

Trainer::Trainer(Model& model, const Corpus& train, const TrainerOptions& opt, Adam& adam, const TrainState& state,
                 Collective* job)
    : model_(model), train_(train), opt_(opt), adam_(adam), state_(state), job_(job ? job : &alone_) {
    if (opt_.batch_parts == 0 || opt_.batch_parts % job_->size() != 0)
        throw UsageError("batches cut into " + std::to_string(opt_.batch_parts) + " parts cannot be shared by " +
                         std::to_string(job_->size()) + " ranks: the parts must be a multiple of the ranks");
    state_.batch_parts = opt_.batch_parts;
    plan_epoch();
    if (state_.batch_in_epoch > batches_.size())
        throw Error("resume: the checkpoint is " + std::to_string(state_.batch_in_epoch) + " batches into an epoch of " +
                    std::to_string(batches_.size()) + " (other data or --batch-tokens?)");
}

std::vector<std::vector<std::size_t>> Trainer::epoch_batches(std::size_t epoch) const {
    // The order depends only on the seed and the epoch: a resumed run sees the same batches.
    return token_batches(train_.pairs, opt_.batch_tokens, state_.seed * 1000003ULL + epoch);
}

void Trainer::plan_epoch() { batches_ = epoch_batches(state_.epoch); }

std::size_t Trainer::updates_until_epoch(std::size_t epochs) const {
    if (state_.epoch >= epochs) return 0;
    std::size_t batches = batches_.size() - state_.batch_in_epoch;
    for (std::size_t e = state_.epoch + 1; e < epochs; ++e) batches += epoch_batches(e).size();
    return (batches + opt_.accumulate - 1) / opt_.accumulate;
}

TrainBatch Trainer::batch_of(const Corpus& c, const std::vector<std::size_t>& idx) const {
    std::vector<std::vector<std::int64_t>> src, tgt;
    for (std::size_t i : idx) {
        src.push_back(c.pairs[i].src);
        tgt.push_back(c.pairs[i].tgt);
    }
    return make_train_batch(src, tgt, model_.config);
}

std::size_t Trainer::take_grads() {
    std::size_t i;
    if (!free_grads_.empty()) {
        i = free_grads_.back();
        free_grads_.pop_back();
    } else {
        i = grads_.size();
        grads_.push_back(std::make_unique<Model>(zeros_like(model_)));
        return i;
    }
    for (const auto& [p, n] : parameter_spans(*grads_[i])) parallel_fill(p, n);
    return i;
}

void Trainer::sum_across_ranks(Model& grads, LossStats& loss) {
    const auto spans = parameter_spans(grads);
    std::size_t n = 0;
    for (const auto& [p, k] : spans) n += k;
    flat_.resize(n);
    float* at = flat_.data();
    for (const auto& [p, k] : spans) at = std::copy(p, p + k, at);
    job_->sum(flat_.data(), n);
    at = flat_.data();
    for (const auto& [p, k] : spans) {
        std::copy(at, at + k, p);
        at += k;
    }
    double s[3] = {loss.smoothed, loss.nll, double(loss.tokens)};
    job_->sum(s, 3);
    loss = {s[0], s[1], std::size_t(s[2])};
}

StepReport Trainer::step() {
    const auto start = std::chrono::steady_clock::now();
    // The update's batches, in order (an epoch may end among them).
    std::vector<std::vector<std::size_t>> update;
    for (std::size_t a = 0; a < opt_.accumulate; ++a) {
        if (state_.batch_in_epoch == batches_.size()) {
            ++state_.epoch;
            state_.batch_in_epoch = 0;
            plan_epoch();
        }
        update.push_back(batches_[state_.batch_in_epoch++]);
    }
    // This rank's parts, each one gradient buffer accumulated over the update's batches,
    // summed in the tree order. A part with no pairs (more parts than pairs) is a zero without
    // a buffer: adding it changes nothing (at most the sign of a zero, which Adam's update
    // does not see), so a huge --batch-parts costs only its non-empty parts.
    constexpr std::size_t kZero = SIZE_MAX;
    struct Part {
        std::size_t grads;  // kZero: all zeros
        LossStats loss;
    };
    auto parts = tree_sum<Part>([this](Part& left, Part&& right) {
        add_loss(left.loss, right.loss);
        if (right.grads == kZero) return;
        if (left.grads == kZero) {
            left.grads = right.grads;
            return;
        }
        add_parameters(*grads_[left.grads], *grads_[right.grads]);
        free_grads_.push_back(right.grads);
    });
    const std::size_t per_rank = opt_.batch_parts / job_->size(), first = job_->rank() * per_rank;
    for (std::size_t p = first; p < first + per_rank; ++p) {
        Part part{kZero, {}};
        for (std::size_t a = 0; a < update.size(); ++a) {
            const auto idx = batch_part(train_.pairs, update[a], p, opt_.batch_parts);
            if (idx.empty()) continue;
            if (part.grads == kZero) part.grads = take_grads();
            TrainOptions lo = opt_.loss;
            // Dropout masks reproducible per update, batch and part.
            lo.seed = state_.seed * 7919ULL + state_.step * 131ULL + a + p * 65537ULL;
            add_loss(part.loss, forward_backward(model_, batch_of(train_, idx), *grads_[part.grads], lo, ws_));
        }
        parts.push(std::move(part));
    }
    Part total = parts.result();
    if (total.grads == kZero) total.grads = take_grads();  // this rank's share was empty
    Model& grads = *grads_[total.grads];
    if (job_->size() > 1) sum_across_ranks(grads, total.loss);
    StepReport r;
    r.loss = total.loss;
    r.reduce = job_->take_traffic();
    r.learning_rate = adam_.learning_rate();
    r.grad_norm = adam_.update(model_, grads, 1.0 / double(std::max<std::size_t>(r.loss.tokens, 1)));
    free_grads_.push_back(total.grads);
    ++state_.step;
    r.step = state_.step;
    r.epoch = state_.epoch;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

LossStats Trainer::evaluate(const Corpus& valid) {
    LossStats total;
    for (const auto& idx : token_batches(valid.pairs, opt_.batch_tokens, 1)) {
        add_loss(total, evaluate_loss(model_, batch_of(valid, idx), opt_.loss.label_smoothing, ws_));
    }
    return total;
}

BleuScore Trainer::evaluate_bleu(const Corpus& valid, const Tokenizer& tok) {
    std::vector<std::vector<std::int64_t>> sources;
    for (const auto& p : valid.pairs) sources.push_back(p.src);
    DecodeOptions opt;
    opt.search.beam = 1;
    auto hyps = translate_sources(model_, sources, opt);
    std::vector<std::string> texts, references;
    for (std::size_t i = 0; i < hyps.size(); ++i) {
        texts.push_back(tok.decode(hyps[i].front().ids));
        references.push_back(valid.pairs[i].reference);
    }
    return corpus_bleu(texts, references);
}

std::size_t choose_batch_parts(std::size_t asked, std::optional<std::size_t> recorded, std::size_t ranks,
                               const std::function<void(const std::string&)>& note) {
    if (asked && asked % ranks != 0)
        throw UsageError("batches cut into " + std::to_string(asked) + " parts cannot be shared by " +
                         std::to_string(ranks) + " ranks: give --batch-parts a multiple of the ranks");
    if (asked) return asked;
    if (!recorded) return std::lcm(std::size_t(4), ranks);
    const std::size_t had = std::max<std::size_t>(*recorded, 1);
    if (had % ranks == 0) return had;
    const std::size_t parts = std::lcm(had, ranks);
    note("the run cut batches into " + std::to_string(had) + " parts, which " + std::to_string(ranks) +
         " ranks cannot share: cutting them into " + std::to_string(parts) + " (the same batches, summed in another order)");
    return parts;
}

ComputeType choose_training_compute(const std::string& name, Collective& ranks,
                                    const std::function<void(const std::string&)>& note) {
    if (name == "float32") return ComputeType::Float32;
    if (name == "bfloat16") {
        require_compute_type(ComputeType::BFloat16);
        return ComputeType::BFloat16;
    }
    if (name != "auto") throw UsageError("unknown training compute type '" + name + "' (float32, bfloat16 or auto)");
    const bool here = compute_type_supported(ComputeType::BFloat16);
    const bool everywhere = ranks.max(here ? 0 : 1) == 0;
    if (everywhere) return ComputeType::BFloat16;
    note(std::string("compute type auto: ") +
         (here ? "another rank's CPU" : "this CPU (" + compute_isa_name() + ")") +
         " has no bfloat16 units (AVX512-BF16 or AMX): training in float32");
    return ComputeType::Float32;
}

void settle_dropout(TrainOptions& loss, ModelConfig& config) {
    for (auto [rate, in_config] : {std::pair{&loss.dropout, &config.dropout},
                                   {&loss.attention_dropout, &config.attention_dropout},
                                   {&loss.activation_dropout, &config.activation_dropout}}) {
        if (*rate < 0) *rate = *in_config;
        *in_config = *rate;
    }
}

}  // namespace tfm
