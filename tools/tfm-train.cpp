// tfm-train: train a Transformer on parallel text with the paper's recipe, into a model
// directory that tfm-translate reads unchanged; checkpoints, exact resume, validation; one
// process, or the ranks of an MPI job (mpirun -np R tfm-train ...). The run directory, the
// trainer and the schedule are libtfm's (train/run_directory.hpp, trainer.hpp, schedule.hpp);
// this file is flags, the job and talking.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "common/checks.hpp"
#include "common/compute_type_option.hpp"
#include "common/model_flags.hpp"
#include "common/run_settings.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/progress_line.hpp"
#include "tfm/train/run_directory.hpp"
#include "tfm/train/schedule.hpp"
#include "tfm/train/trainer.hpp"
#ifdef TFM_HAVE_MPI
#include "tfm/train/mpi_collective.hpp"
#endif

namespace {

volatile std::sig_atomic_t g_signal = 0;
void on_signal(int s) { g_signal = s; }

// The processes training together: the ranks an MPI launcher started (when tfm-train was
// built with MPI), or this one alone.
struct Job {
    tfm::Collective alone;
#ifdef TFM_HAVE_MPI
    std::unique_ptr<tfm::MpiCollective> mpi;
#endif
    tfm::Collective* ranks = &alone;
    std::string refusal;  // why this process cannot train (built without MPI, yet one of several)

    Job(int* argc, char*** argv) {
        const std::size_t launched = tfm::launched_ranks();
        if (launched <= 1) return;
#ifdef TFM_HAVE_MPI
        mpi = std::make_unique<tfm::MpiCollective>(argc, argv);
        ranks = mpi.get();
#else
        (void)argc, (void)argv;
        refusal = "started as one of " + std::to_string(launched) +
                  " ranks, but this tfm-train was built without MPI (install libopenmpi-dev and rebuild): refusing "
                  "to train " + std::to_string(launched) + " separate copies";
#endif
    }
    std::string name() const {
        return ranks->size() > 1 ? "tfm-train[" + std::to_string(ranks->rank()) + "]" : "tfm-train";
    }
    // An error on one rank ends the whole job, rather than leaving the others waiting for it;
    // a stop the ranks agreed on ends each of them normally.
    int finish(int code) {
#ifdef TFM_HAVE_MPI
        if (mpi && code != 0 && code != 128 + SIGINT && code != 128 + SIGTERM) mpi->abort(code);
#endif
        return code;
    }
};

struct Flags {
    std::string src, tgt, valid_src, valid_tgt, out;
    std::vector<std::string> spm;
    std::size_t vocab = 8000;
    tfm::ScheduleOptions schedule;
    std::uint64_t seed = 1;
    bool resume = false, separate = false;
    int threads = 0;
    std::string compute;
    tfm::tool::ArchFlags arch;
    tfm::TrainerOptions trainer;
    tfm::AdamOptions adam;
    tfm::tool::RunSettings run;  // what --resume carries over
};

void add_flags(tfm::tool::Tool& tool, Flags& f) {
    using tfm::tool::in_range, tfm::tool::kMaxCount;
    CLI::App& app = tool.app();
    tfm::TrainerOptions& to = f.trainer;
    tfm::AdamOptions& ao = f.adam;
    tfm::tool::RunSettings& run = f.run;
    to.loss.dropout = to.loss.attention_dropout = to.loss.activation_dropout = -1.0f;  // -1: the config's
    to.batch_parts = 0;  // 0: not given
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
    app.add_option("--vocab-size", f.vocab, "Vocabulary size: pieces of each trained SentencePiece model (default 8000)")
        ->excludes(spm_flag)->check(in_range(8, 1 << 20));
    app.add_flag("--separate-vocab", f.separate,
                 "Train one SentencePiece model per side: separate source and target vocabularies and embeddings")
        ->excludes(spm_flag);
    tfm::tool::add_arch_flags(app, f.arch);
    tool.rename_option("--positions", "--position-encoding");
    run.add(app, "--batch-tokens", to.batch_tokens, "Padded tokens per batch (default 4096)", in_range(1, 1 << 24));
    run.add(app, "--accumulate", to.accumulate, "Batches per update (default 1)", in_range(1, 1 << 16));
    app.add_option("--batch-parts", to.batch_parts,
                   "Cut every batch into this many parts, their gradients summed in a fixed order: the same training "
                   "bit for bit on any number of ranks that divides it (default 4, or a multiple of the ranks; on "
                   "--resume, the run's own)")
        ->check(in_range(1, 1 << 16));
    app.add_option("--steps", f.schedule.steps, "Stop after this many updates (default 100000)")->check(in_range(1, kMaxCount));
    app.add_option("--epochs", f.schedule.epochs, "Stop after this many epochs (default: --steps decides)")->check(in_range(1, kMaxCount));
    run.add(app, "--lr-factor", ao.lr_factor, "Learning-rate factor of the warmup schedule (default 1)", in_range(0, 1000));
    run.add(app, "--warmup", ao.warmup, "Warmup steps (default 4000)", in_range(1, kMaxCount));
    run.add(app, "--cooldown", ao.cooldown,
            "Over this fraction of the run's updates at its end (of --steps, or of --epochs when that ends it "
            "first), the learning rate falls linearly to zero (default 0: the paper's schedule throughout)",
            in_range(0, 1));
    run.add(app, "--clip-norm", ao.clip_norm, "Clip the gradient norm (default 0: off)", in_range(0, 1e9));
    run.add(app, "--label-smoothing", to.loss.label_smoothing, "epsilon (default 0.1)", in_range(0, 1, true));
    run.add(app, "--dropout", to.loss.dropout,
            "Dropout on embeddings and sublayer outputs (default: the config's, 0.1)", in_range(0, 1, true));
    run.add(app, "--attention-dropout", to.loss.attention_dropout,
            "Dropout on attention probabilities (default: the config's, 0)", in_range(0, 1, true));
    run.add(app, "--activation-dropout", to.loss.activation_dropout,
            "Dropout on the feed-forward's hidden layer (default: the config's, 0)", in_range(0, 1, true));
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
    tfm::tool::add_training_compute_type_option(app, f.compute);
    app.add_option("--threads", f.threads, "Threads (default: the CPUs it may use, shared among the ranks on this machine; or TFM_THREADS)")->check(in_range(1, tfm::tool::kMaxThreads));

}

// The training pairs (too long or empty pairs skipped, and said so), and what they hold.
tfm::Corpus load_training_pairs(tfm::tool::Tool& tool, const Flags& f, const tfm::ModelDir& md, bool lead) {
    tfm::Corpus train = tfm::load_parallel(f.src, f.tgt, md.tokenizer, md.model.config.max_positions);
    if (!lead) return train;
    if (train.skipped_long || train.skipped_empty)
        tool.warn(std::to_string(train.skipped_long) + " pairs longer than " +
                  std::to_string(md.model.config.max_positions) + " tokens and " + std::to_string(train.skipped_empty) +
                  " with an empty side skipped, of " + std::to_string(train.lines));
    std::size_t target_tokens = 0;
    for (const auto& p : train.pairs) target_tokens += p.tgt.size() + 1;
    tool.info(std::to_string(train.pairs.size()) + " sentence pairs, " + std::to_string(target_tokens) +
              " target tokens per epoch");
    return train;
}

// What the schedule says: a progress line rewritten in place on a terminal (a log line
// starts below it), log lines through the tool, and the signal that asks it to stop.
tfm::ScheduleCallbacks talk(tfm::tool::Tool& tool, std::size_t first_step, const tfm::Adam& adam) {
    auto line = std::make_shared<tfm::ProgressLine>(first_step);
    auto shown = std::make_shared<bool>(false);
    tfm::ScheduleCallbacks cb;
    cb.progress = [line, shown, &adam, terminal = bool(::isatty(STDERR_FILENO))](const tfm::StepReport& r) {
        const std::string text = line->update(r, adam.horizon());
        if (!terminal) return;
        std::fprintf(stderr, "\rtfm-train: %s  ", text.c_str());
        std::fflush(stderr);
        *shown = true;
    };
    cb.info = [&tool, shown](const std::string& text) {
        if (*shown) std::fputc('\n', stderr);
        *shown = false;
        tool.info(text);
    };
    cb.stop_requested = [] { return int(g_signal); };
    return cb;
}

}  // namespace

int main(int argc, char** argv) {
    std::optional<Job> job_holder;
    try {
        job_holder.emplace(&argc, &argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tfm-train: error: %s\n", e.what());
        return 1;
    }
    Job& job = *job_holder;
    tfm::Collective& ranks = *job.ranks;
    const bool lead = ranks.rank() == 0;
    tfm::tool::Tool tool(job.name(), "Train a Transformer on parallel text (Adam, warmup, label smoothing, dropout).",
        "  tfm-train --src train.de.gz --tgt train.en.gz --valid-src val.de.gz --valid-tgt val.en.gz -o model \\\n"
        "            --preset small --batch-tokens 4096 --steps 20000\n"
        "  tfm-train --src train.de --tgt train.en -o model --resume      # continue after a stop\n"
        "  mpirun -np 4 tfm-train --src train.de --tgt train.en -o model --batch-parts 4   # 4 processes\n"
        "  tfm-translate -m model < test.de\n");
    Flags f;
    add_flags(tool, f);
    CLI::App& app = tool.app();
    return job.finish(tool.run(argc, argv, [&] {
        if (!job.refusal.empty()) throw tfm::UsageError(job.refusal);
        tfm::set_num_threads(f.threads);
        // Ranks sharing a machine share its CPUs, unless told otherwise.
        if (!f.threads && !std::getenv("TFM_THREADS") && ranks.local_size() > 1)
            tfm::set_num_threads(std::max(1, tfm::num_threads() / int(ranks.local_size())));
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
        if (f.resume && (app.count("--spm") || app.count("--vocab-size") || f.separate))
            throw tfm::UsageError("--resume keeps the model's tokenizer: --spm, --vocab-size and --separate-vocab do "
                                  "not apply");
        const auto note = [&](const std::string& line) {  // what the job says once, through rank 0
            if (lead) tool.info(line);
        };
        f.trainer.loss.compute = tfm::choose_training_compute(f.compute, ranks, note);
        if (f.trainer.loss.compute != tfm::ComputeType::Float32)
            note(std::string("products in ") + tfm::compute_type_name(f.trainer.loss.compute) + " (" +
                 tfm::compute_isa_name() + "), summed in float32");
        tfm::RunDirectory dir(f.out, f.resume, ranks);
        dir.create([&](const std::string& path) {
            tfm::tool::VocabularySource vocab{f.spm, {f.src}, {f.tgt}, f.separate, {}};
            vocab.training.vocab_size = f.vocab;
            vocab.training.seed = f.seed;
            tfm::tool::create_model(path, f.arch, vocab, f.seed, 4);  // weights, gradients, Adam's moments
        });
        tfm::ModelDir md = tfm::load_model_dir(dir.model_path());
        tfm::Model& model = md.model;
        const tfm::tool::SpmChoice spm{f.out + "/source.spm", f.out + "/target.spm", model.config.share_embeddings};
        if (f.resume && tfm::tool::arch_flags_given(app) &&
            !tfm::same_architecture(tfm::tool::config_from_flags(f.arch, spm), model.config))
            throw tfm::Error(f.out + " holds a model of another architecture than the flags ask for");
        tfm::TrainState state;
        state.seed = f.seed;
        if (dir.checkpoint()) {  // the run's settings first: Adam's schedule is one of them
            state = tfm::load_checkpoint_state(*dir.checkpoint());
            f.run.resume(state.settings, *dir.checkpoint() + "/state.json", note);
        }
        tfm::settle_dropout(f.trainer.loss, model.config);
        tfm::Adam adam(model, f.adam);
        std::optional<std::size_t> recorded_parts;
        if (dir.checkpoint()) {
            tfm::load_checkpoint(*dir.checkpoint(), model, adam, state);
            recorded_parts = state.batch_parts;
            note("resuming from " + *dir.checkpoint() + " at step " + std::to_string(state.step));
        }
        dir.write_config(model.config);
        f.trainer.batch_parts = tfm::choose_batch_parts(f.trainer.batch_parts, recorded_parts, ranks.size(), note);
        state.settings = f.run.record();
        const tfm::Corpus train = load_training_pairs(tool, f, md, lead);
        std::optional<tfm::Corpus> valid;
        if (!f.valid_src.empty())
            valid = tfm::load_parallel(f.valid_src, f.valid_tgt, md.tokenizer, model.config.max_positions);
        dir.commit(model, state);  // everything checked: a new model takes its place
        const std::size_t parts = f.trainer.batch_parts, r = ranks.rank(), n = ranks.size();
        if (n > 1)
            tool.info("rank " + std::to_string(r) + " of " + std::to_string(n) + ": " +
                      std::to_string(tfm::num_threads()) + " threads, batch parts " + std::to_string(r * parts / n) +
                      " to " + std::to_string((r + 1) * parts / n - 1) + " of " + std::to_string(parts));
        tfm::Trainer trainer(model, train, f.trainer, adam, state, &ranks);
        tfm::run_schedule(trainer, model, adam, f.out, f.schedule, {valid ? &*valid : nullptr, &md.tokenizer},
                          talk(tool, trainer.state().step, adam));
    }));
}
