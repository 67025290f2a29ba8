// tfm-train: train a Transformer on parallel text with the paper's recipe, into a model
// directory that tfm-translate reads unchanged; checkpoints, exact resume, validation. The
// schedule itself is libtfm's (train/schedule.hpp); this file is flags and talking.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <optional>

#include "common/checks.hpp"
#include "common/model_flags.hpp"
#include "common/tool.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/io/dir_guard.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/train/schedule.hpp"
#include "tfm/train/trainer.hpp"

namespace {

volatile std::sig_atomic_t g_signal = 0;
void on_signal(int s) { g_signal = s; }

struct Flags {
    std::string src, tgt, valid_src, valid_tgt, out;
    std::vector<std::string> spm;
    std::size_t vocab = 8000;
    tfm::ScheduleOptions schedule;
    std::uint64_t seed = 1;
    bool resume = false, separate = false;
    int threads = 0;
};

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-train", "Train a Transformer on parallel text (Adam, warmup, label smoothing, dropout).",
        "  tfm-train --src train.de.gz --tgt train.en.gz --valid-src val.de.gz --valid-tgt val.en.gz -o model \\\n"
        "            --preset small --batch-tokens 4096 --steps 20000\n"
        "  tfm-train --src train.de --tgt train.en -o model --resume      # continue after a stop\n"
        "  tfm-translate -m model < test.de\n");
    using tfm::tool::in_range, tfm::tool::kMaxCount;
    CLI::App& app = tool.app();
    Flags f;
    tfm::tool::ArchFlags arch;
    tfm::TrainerOptions to;
    tfm::AdamOptions ao;
    to.loss.dropout = -1.0f;  // -1: the config's
    app.add_option("--src", f.src, "Source sentences, one per line (gzip ok)")->required()->check(CLI::ExistingFile);
    app.add_option("--tgt", f.tgt, "Target sentences, line-aligned with --src")->required()->check(CLI::ExistingFile);
    auto* vs = app.add_option("--valid-src", f.valid_src, "Validation sources")->check(CLI::ExistingFile);
    auto* vt = app.add_option("--valid-tgt", f.valid_tgt, "Validation targets")->check(CLI::ExistingFile);
    vs->needs(vt);
    vt->needs(vs);
    app.add_option("-o,--output", f.out, "Model directory (created; with --resume: continued)")->required();
    auto* spm_flag = app.add_option("--spm", f.spm,
                                    "SentencePiece model to share, or a source and a target model (default: train "
                                    "one shared model on --src and --tgt)")
        ->expected(1, 2)->check(CLI::ExistingFile);
    app.add_option("--vocab-size", f.vocab, "Pieces of each trained SentencePiece model (default 8000)")
        ->excludes(spm_flag)->check(in_range(8, 1 << 20));
    app.add_flag("--separate-vocab", f.separate,
                 "Train one SentencePiece model per side: separate source and target vocabularies and embeddings")
        ->excludes(spm_flag);
    tfm::tool::add_arch_flags(app, arch);
    app.add_option("--batch-tokens", to.batch_tokens, "Padded tokens per batch (default 4096)")->check(in_range(1, 1 << 24));
    app.add_option("--accumulate", to.accumulate, "Batches per update (default 1)")->check(in_range(1, 1 << 16));
    app.add_option("--steps", f.schedule.steps, "Stop after this many updates (default 100000)")->check(in_range(1, kMaxCount));
    app.add_option("--epochs", f.schedule.epochs, "Stop after this many epochs (default: --steps decides)")->check(in_range(1, kMaxCount));
    app.add_option("--lr-factor", ao.lr_factor, "Learning-rate factor of the warmup schedule (default 1)")->check(in_range(0, 1000));
    app.add_option("--warmup", ao.warmup, "Warmup steps (default 4000)")->check(in_range(1, kMaxCount));
    app.add_option("--clip-norm", ao.clip_norm, "Clip the gradient norm (default 0: off)")->check(in_range(0, 1e9));
    app.add_option("--label-smoothing", to.loss.label_smoothing, "epsilon (default 0.1)")->check(in_range(0, 1, true));
    app.add_option("--dropout", to.loss.dropout, "Dropout (default: the config's, 0.1)")->check(in_range(0, 1, true));
    app.add_option("--seed", f.seed, "Seed of weights, data order and dropout (default 1)");
    app.add_option("--save-every", f.schedule.save_every, "Checkpoint every N updates (default 1000)")->check(in_range(1, kMaxCount));
    app.add_option("--keep", f.schedule.keep, "Checkpoints kept (default 5)")->check(in_range(1, 1 << 20));
    app.add_option("--valid-every", f.schedule.valid_every, "Validate every N updates (default 1000)")->check(in_range(1, kMaxCount));
    app.add_option("--log-every", f.schedule.log_every, "Log every N updates (default 100)")->check(in_range(1, kMaxCount));
    app.add_flag("--resume", f.resume, "Continue from the newest checkpoint in the output directory");
    app.add_option("--patience", f.schedule.patience,
                   "Stop after this many validations without a better validation loss (default 0: never)")
        ->needs(vs)->check(in_range(0, kMaxCount));
    app.add_option("--average-last", f.schedule.average_last,
                   "At the end, make the directory's model the mean of the last K checkpoints (the paper: 5)")
        ->check(in_range(1, 1 << 20));
    app.add_option("--threads", f.threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(in_range(1, tfm::tool::kMaxThreads));

    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(f.threads);
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
        const std::string cfg_path = f.out + "/config.json";
        if (f.resume && !tfm::path_present(cfg_path)) throw tfm::Error(f.out + ": nothing to resume (no config.json)");
        if (f.resume && (app.count("--spm") || app.count("--vocab-size") || f.separate))
            throw tfm::UsageError("--resume keeps the model's tokenizer: --spm, --vocab-size and --separate-vocab do "
                                  "not apply");
        if (!f.resume && tfm::path_present(cfg_path))
            throw tfm::UsageError(f.out + " already holds a model: give --resume to continue it, or another -o");
        // A new model is built beside its place and moved in only once its data have been read
        // and checked: a refusal leaves nothing behind. A directory in training is locked.
        std::optional<tfm::StagedDir> staged;
        std::optional<tfm::DirLock> lock;
        if (f.resume) lock.emplace(f.out);
        if (!f.resume) {
            staged.emplace(f.out, false);
            tfm::tool::VocabularySource vocab{f.spm, {f.src}, {f.tgt}, f.separate, {}};
            vocab.training.vocab_size = f.vocab;
            vocab.training.seed = f.seed;
            tfm::tool::create_model(staged->path(), arch, vocab, f.seed, 4);  // weights, gradients, Adam's moments
        }
        tfm::ModelDir md = tfm::load_model_dir(staged ? staged->path() : f.out);
        tfm::Model& model = md.model;
        if (f.resume && tfm::tool::arch_flags_given(app)) {
            const tfm::tool::SpmChoice spm{f.out + "/source.spm", f.out + "/target.spm", model.config.share_embeddings};
            tfm::ModelConfig asked = tfm::tool::config_from_flags(arch, spm);
            if (tfm::config_json(asked) != tfm::config_json(model.config))
                throw tfm::Error(f.out + " holds a model of another architecture than the flags ask for");
        }
        if (to.loss.dropout < 0) to.loss.dropout = model.config.dropout;
        tfm::Adam adam(model, ao);
        tfm::TrainState state;
        state.seed = f.seed;
        if (f.resume) {
            if (auto ck = tfm::latest_checkpoint(f.out)) {
                tfm::load_checkpoint(*ck, model, adam, state);
                tool.info("resuming from " + *ck + " at step " + std::to_string(state.step));
            }
        }
        tfm::Corpus train = tfm::load_parallel(f.src, f.tgt, md.tokenizer, model.config.max_positions);
        if (train.skipped_long || train.skipped_empty)
            tool.warn(std::to_string(train.skipped_long) + " pairs longer than " +
                      std::to_string(model.config.max_positions) + " tokens and " + std::to_string(train.skipped_empty) +
                      " with an empty side skipped, of " + std::to_string(train.lines));
        std::size_t target_tokens = 0;
        for (const auto& p : train.pairs) target_tokens += p.tgt.size() + 1;
        tool.info(std::to_string(train.pairs.size()) + " sentence pairs, " + std::to_string(target_tokens) +
                  " target tokens per epoch");
        std::optional<tfm::Corpus> valid;
        if (!f.valid_src.empty())
            valid = tfm::load_parallel(f.valid_src, f.valid_tgt, md.tokenizer, model.config.max_positions);
        if (staged) {  // everything checked: the new model takes its place
            staged->commit();
            lock.emplace(f.out);
        }
        tfm::Trainer trainer(model, train, to, adam, state);
        // The progress line, rewritten in place on a terminal; a log line starts below it.
        const bool terminal = ::isatty(STDERR_FILENO);
        bool progress_shown = false;
        double total_secs = 0;
        const std::size_t first_step = trainer.state().step;
        tfm::ScheduleCallbacks cb;
        cb.progress = [&](const tfm::StepReport& r) {
            total_secs += r.seconds;
            if (!terminal) return;
            const double per_step = total_secs / double(r.step - first_step);
            std::fprintf(stderr, "\rtfm-train: step %zu/%zu epoch %zu loss %.3f lr %.2e %.0f tokens/s ETA %.0f min  ",
                         r.step, f.schedule.steps, r.epoch,
                         r.loss.smoothed / double(std::max<std::size_t>(r.loss.tokens, 1)), r.learning_rate,
                         double(r.loss.tokens) / r.seconds,
                         per_step * double(f.schedule.steps - std::min(r.step, f.schedule.steps)) / 60.0);
            std::fflush(stderr);
            progress_shown = true;
        };
        cb.info = [&](const std::string& line) {
            if (progress_shown) std::fputc('\n', stderr);
            progress_shown = false;
            tool.info(line);
        };
        cb.stop_requested = [] { return int(g_signal); };
        tfm::run_schedule(trainer, model, adam, f.out, f.schedule, {valid ? &*valid : nullptr, &md.tokenizer}, cb);
    });
}
