#include "tfm/train/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "tfm/base/error.hpp"
#include "tfm/base/number_text.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/model_dir.hpp"

namespace tfm {

namespace {

// Sums over the updates since the last log row.
struct Window {
    double tokens = 0, seconds = 0, loss = 0, nll = 0, reduce_seconds = 0, reduce_bytes = 0;
    std::size_t counted = 0, updates = 0;
    void add(const StepReport& r) {
        tokens += double(r.loss.tokens), seconds += r.seconds, loss += r.loss.smoothed, nll += r.loss.nll;
        reduce_seconds += r.reduce.seconds, reduce_bytes += r.reduce.bytes;
        counted += r.loss.tokens;
        ++updates;
    }
};

}  // namespace

void run_schedule(Trainer& trainer, Model& model, Adam& adam, const std::string& model_dir, const ScheduleOptions& opt,
                  const Validation& valid, const ScheduleCallbacks& cb) {
    // In a job of several ranks, rank 0 alone validates, logs and saves; stopping is agreed.
    Collective& job = trainer.job();
    const bool lead = job.rank() == 0;
    const auto info = [&](const std::string& line) {
        if (cb.info && lead) cb.info(line);
    };
    const std::string log_path = model_dir + "/metrics.tsv";
    std::ofstream log;
    if (lead) {
        const bool new_log = !path_present(log_path);
        log.open(log_path, std::ios::app);
        if (!log) throw Error(log_path + ": cannot open for appending");
        if (new_log)
            log << "step\tepoch\tloss\tnll\tppl\tlr\tgrad_norm\ttokens_per_s\tvalid_loss\tvalid_nll\tvalid_ppl\tvalid_bleu\n";
    }
    const auto save = [&]() -> std::string {
        return lead ? save_checkpoint(model_dir, model, adam, trainer.state(), opt.keep) : std::string();
    };
    Window w;
    double best_valid = std::numeric_limits<double>::infinity();
    std::size_t stale = 0;
    bool stop_early = false;
    const std::string no_valid = "\t\t\t\t";
    // The run ends after update `horizon`: --steps, or the last update of epoch --epochs when
    // that comes first. The learning rate's cooldown counts back from it.
    std::size_t horizon = opt.steps;
    if (opt.epochs) horizon = std::min(horizon, trainer.state().step + trainer.updates_until_epoch(opt.epochs));
    adam.set_horizon(horizon);
    while (trainer.state().step < horizon) {
        const StepReport r = trainer.step();
        if (cb.progress && lead) cb.progress(r);
        w.add(r);
        const bool last = r.step >= horizon;
        std::string valid_cols = no_valid;
        if (valid.pairs && (r.step % opt.valid_every == 0 || last)) {
            if (lead) {
                const LossStats v = trainer.evaluate(*valid.pairs);
                const double vl = v.smoothed / double(v.tokens), vn = v.nll / double(v.tokens);
                const BleuScore bleu = trainer.evaluate_bleu(*valid.pairs, *valid.tokenizer);
                valid_cols = "\t" + number_text("%.4f", vl) + "\t" + number_text("%.4f", vn) + "\t" + number_text("%.2f", std::exp(vn)) + "\t" +
                             number_text("%.2f", bleu.score);
                info("step " + std::to_string(r.step) + " validation: loss " + number_text("%.4f", vl) + ", ppl " +
                     number_text("%.2f", std::exp(vn)) + ", BLEU " + number_text("%.2f", bleu.score) + " (greedy)");
                if (vl < best_valid) {
                    best_valid = vl;
                    stale = 0;
                } else if (opt.patience && ++stale >= opt.patience) {
                    stop_early = true;
                }
            }
            stop_early = job.max(stop_early) != 0;  // rank 0's decision, on every rank
        }
        if (lead && (r.step % opt.log_every == 0 || last || valid_cols != no_valid)) {
            const double tl = w.loss / double(w.counted), tn = w.nll / double(w.counted);
            log << r.step << '\t' << r.epoch << '\t' << number_text("%.4f", tl) << '\t' << number_text("%.4f", tn) << '\t'
                << number_text("%.2f", std::exp(tn)) << '\t' << number_text("%.3e", r.learning_rate) << '\t' << number_text("%.3f", r.grad_norm)
                << '\t' << number_text("%.1f", w.tokens / w.seconds) << valid_cols << '\n';
            if (!log.flush()) throw Error(log_path + ": write error");
            std::string across;
            if (job.size() > 1)
                across = ", summing across " + std::to_string(job.size()) + " ranks " +
                         number_text("%.1f", 1e3 * w.reduce_seconds / double(w.updates)) + " ms and " +
                         number_text("%.2f", w.reduce_bytes / double(w.updates) / 1e6) + " MB sent per update";
            info("step " + std::to_string(r.step) + " epoch " + std::to_string(r.epoch) + " loss " + number_text("%.4f", tl) +
                 " ppl " + number_text("%.2f", std::exp(tn)) + " lr " + number_text("%.3e", r.learning_rate) + " " +
                 number_text("%.0f", w.tokens / w.seconds) + " tokens/s" + across);
            w = Window{};
        }
        if (r.step % opt.save_every == 0 || last || stop_early) save();
        if (stop_early) {
            info("stopping early: " + std::to_string(opt.patience) + " validations without improvement");
            break;
        }
        // A stop asked of any rank stops every rank after this same update.
        if (const int signal = int(job.max(cb.stop_requested ? cb.stop_requested() : 0))) {
            const std::string where = save();
            throw Interrupted(signal, lead ? "interrupted: checkpoint saved in " + where
                                           : "stopped with the other ranks at step " + std::to_string(r.step));
        }
    }
    if (trainer.state().step % opt.save_every != 0) save();
    if (!lead) return;
    log.close();
    if (log.fail()) throw Error(log_path + ": write error");
    if (opt.average_last) {
        const auto last = latest_checkpoints(model_dir, opt.average_last);
        save_model(model_dir, average_checkpoints(last));
        info("the model in " + model_dir + " is the mean of the last " + std::to_string(last.size()) + " checkpoints");
    }
}

}  // namespace tfm
