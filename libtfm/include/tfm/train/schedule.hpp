// The training schedule (what Marian calls its scheduler): when to stop (steps, epochs,
// patience on the validation loss, a stop request), when to validate (loss and greedy BLEU),
// log (a metrics.tsv row) and checkpoint, and the checkpoint average at the end. Any front
// end drives a Trainer through it: tfm-train, or another program embedding libtfm. The
// library never prints: what a person should see is handed to the front end's callbacks.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "tfm/train/trainer.hpp"

namespace tfm {

struct ScheduleOptions {
    std::size_t steps = 100000;     // stop after this many updates
    std::size_t epochs = 0;         // and after this many epochs (0: steps decide)
    std::size_t save_every = 1000;  // checkpoint every N updates (and at the end)
    std::size_t keep = 5;           // checkpoints kept
    std::size_t valid_every = 1000; // validate every N updates (and at the last)
    std::size_t log_every = 100;    // a metrics.tsv row every N updates
    std::size_t patience = 0;       // stop after this many validations without a better loss (0: never)
    std::size_t average_last = 0;   // at the end, the model is the mean of the last K checkpoints
};

struct ScheduleCallbacks {
    std::function<void(const StepReport&)> progress;     // after every update
    std::function<void(const std::string&)> info;        // a line for the log ("step 100 ...")
    std::function<int()> stop_requested;                 // non-zero (a signal number): stop now
};

// Training data for validation: pairs and the tokenizer that decodes translations for BLEU.
struct Validation {
    const Corpus* pairs = nullptr;  // null: no validation
    const Tokenizer* tokenizer = nullptr;
};

// Runs updates of trainer (over model, with adam) until the options say stop, writing
// metrics.tsv (appended; its header when new) and checkpoints into model_dir. A stop request
// saves a checkpoint, then throws Interrupted naming it. In a job of several ranks
// (trainer.job()) rank 0 alone validates, writes and calls progress and info; a stop asked of
// any rank, or rank 0's early stop, stops every rank after the same update.
void run_schedule(Trainer& trainer, Model& model, Adam& adam, const std::string& model_dir, const ScheduleOptions& opt,
                  const Validation& valid, const ScheduleCallbacks& callbacks);

}  // namespace tfm
