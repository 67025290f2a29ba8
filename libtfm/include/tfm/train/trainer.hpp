// The training loop's state machine: token batches in shuffled order epoch after epoch,
// gradient accumulation, Adam updates, validation loss. tfm-train drives it and does the
// talking; checkpoint.hpp saves and restores it exactly. Under a Collective of R ranks each
// rank computes its share of every batch and the gradients are summed across ranks before
// every rank takes the same Adam step (docs/distributed.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "tfm/eval/bleu.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/collective.hpp"
#include "tfm/train/corpus.hpp"
#include "tfm/train/training.hpp"

namespace tfm {

struct TrainerOptions {
    std::size_t batch_tokens = 4096;  // padded tokens per batch (longest side x sentences)
    std::size_t accumulate = 1;       // batches per update
    // Every batch is cut into this many parts of about equal tokens (batch_part), whose
    // gradients are summed in TreeSum's order. The ranks of a job share the parts, so R ranks
    // train bit for bit as one process with the same value, when R divides it and the quotient
    // is a power of two.
    std::size_t batch_parts = 1;
    TrainOptions loss;                // label smoothing, dropout
};

// The parts each batch is cut into: `asked` when given (non-zero; a UsageError when the ranks
// cannot share it); else, on resume, the run's
// own (`recorded`; a checkpoint that does not say: 1), made a multiple of the ranks when they
// cannot share it (note hears why); else 4, or the least multiple of 4 and the ranks. Four
// parts cost nothing on one process (less padding offsets the smaller products), and 1, 2 or
// 4 ranks then train alike.
std::size_t choose_batch_parts(std::size_t asked, std::optional<std::size_t> recorded, std::size_t ranks,
                               const std::function<void(const std::string&)>& note);

// The products' arithmetic of a run (--compute-type): "float32"; "bfloat16" (tfm::Error where
// this CPU has no bfloat16 units, AVX512-BF16 or AMX); "auto": bfloat16 where every rank's CPU
// has them (the ranks agree, so that they compute alike), else float32, and note hears why.
// Anything else: UsageError. Checkpoints are float32 whatever the choice, so a run can resume
// in another compute type.
ComputeType choose_training_compute(const std::string& name, Collective& ranks,
                                    const std::function<void(const std::string&)>& note);

// Dropout rates not given (negative) become the config's; the config then records the run's.
void settle_dropout(TrainOptions& loss, ModelConfig& config);

struct StepReport {
    std::size_t step = 0, epoch = 0;
    LossStats loss;         // summed over the update's batches
    double learning_rate = 0;
    double grad_norm = 0;
    double seconds = 0;     // wall time of the update
    Collective::Traffic reduce;  // bytes this rank sent and seconds it spent summing across ranks
};

class Trainer {
public:
    // job: the ranks sharing the work (null: this process alone). opt.batch_parts must be a
    // multiple of their number.
    Trainer(Model& model, const Corpus& train, const TrainerOptions& opt, Adam& adam, const TrainState& state,
            Collective* job = nullptr);

    StepReport step();                          // one optimizer update
    LossStats evaluate(const Corpus& valid);    // loss without dropout
    // Corpus BLEU of greedy translations of the sources against the references.
    BleuScore evaluate_bleu(const Corpus& valid, const Tokenizer& tok);
    const TrainState& state() const { return state_; }
    // The updates from here to the end of epoch `epochs` (counted from 1; 0 when it is over):
    // the batches left in this epoch and every batch of the epochs planned after it, over
    // the batches an update takes.
    std::size_t updates_until_epoch(std::size_t epochs) const;
    Collective& job() { return *job_; }

private:
    Model& model_;
    const Corpus& train_;
    TrainerOptions opt_;
    Adam& adam_;
    TrainState state_;
    Collective alone_;
    Collective* job_;
    // Gradient buffers: one per part being summed (TreeSum keeps at most log2(parts) + 1).
    std::vector<std::unique_ptr<Model>> grads_;
    std::vector<std::size_t> free_grads_;
    std::vector<float> flat_;  // the summed gradient, packed for the sum across ranks
    TrainingWorkspace ws_;
    std::vector<std::vector<std::size_t>> batches_;  // of the current epoch
    std::vector<std::vector<std::size_t>> epoch_batches(std::size_t epoch) const;  // pair indices per batch
    void plan_epoch();
    TrainBatch batch_of(const Corpus& c, const std::vector<std::size_t>& idx) const;
    std::size_t take_grads();  // a zeroed gradient buffer
    void sum_across_ranks(Model& grads, LossStats& loss);
};

}  // namespace tfm
