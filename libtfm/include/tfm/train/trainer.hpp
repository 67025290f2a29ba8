// The training loop's state machine: token batches in shuffled order epoch after epoch,
// gradient accumulation, Adam updates, validation loss. tfm-train drives it and does the
// talking; checkpoint.hpp saves and restores it exactly.
#pragma once

#include <cstdint>
#include <optional>

#include "tfm/decode/bleu.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/corpus.hpp"
#include "tfm/train/training.hpp"

namespace tfm {

struct TrainerOptions {
    std::size_t batch_tokens = 4096;  // padded tokens per batch (longest side x sentences)
    std::size_t accumulate = 1;       // batches per update
    TrainOptions loss;                // label smoothing, dropout
};

struct StepReport {
    std::size_t step = 0, epoch = 0;
    LossStats loss;         // summed over the update's batches
    double learning_rate = 0;
    double grad_norm = 0;
    double seconds = 0;     // wall time of the update
};

class Trainer {
public:
    Trainer(Model& model, const Corpus& train, const TrainerOptions& opt, Adam& adam, const TrainState& state);

    StepReport step();                          // one optimizer update
    LossStats evaluate(const Corpus& valid);    // loss without dropout
    // Corpus BLEU of greedy translations of the sources against the references.
    Bleu evaluate_bleu(const Corpus& valid, const Tokenizer& tok);
    const TrainState& state() const { return state_; }

private:
    Model& model_;
    const Corpus& train_;
    TrainerOptions opt_;
    Adam& adam_;
    TrainState state_;
    Model grads_;
    TrainingWorkspace ws_;
    std::vector<std::vector<std::size_t>> batches_;  // of the current epoch
    void plan_epoch();
    TrainBatch batch_of(const Corpus& c, const std::vector<std::size_t>& idx) const;
};

}  // namespace tfm
