#include "tfm/train/run_directory.hpp"

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"

namespace tfm {

RunDirectory::RunDirectory(std::string path, bool resume, Collective& ranks)
    : path_(std::move(path)), resume_(resume), ranks_(ranks) {
    const std::string config = path_ + "/config.json";
    const bool lead = ranks_.rank() == 0;
    if (resume_ && !path_present(config)) throw Error(path_ + ": nothing to resume (no config.json)");
    if (!lead) ranks_.max(0);  // rank 0 makes or locks the directory first (its commit answers)
    if (!resume_ && lead && path_present(config))
        throw UsageError(path_ + " already holds a model: give --resume to continue it, or another -o");
    if (!resume_ && !lead && !path_present(config))
        throw Error(path_ + ": rank 0 made the model here, but this rank does not see it: -o must be a directory "
                    "every rank shares");
    if (resume_ && lead) lock_.emplace(path_);
    if (resume_) checkpoint_ = latest_checkpoint(path_);
}

void RunDirectory::create(const std::function<void(const std::string&)>& make) {
    if (resume_ || ranks_.rank() != 0) return;
    staged_.emplace(path_, false);
    staged_->fill(make);
}

const std::string& RunDirectory::model_path() const { return staged_ ? staged_->path() : path_; }

void RunDirectory::write_config(const ModelConfig& config) const {
    if (staged_) write_file_atomic(staged_->path() + "/config.json", config_json(config));
}

void RunDirectory::commit(Model& model, const TrainState& state) {
    if (staged_) {
        staged_->commit();
        staged_.reset();
        lock_.emplace(path_);
    }
    if (ranks_.rank() == 0) ranks_.max(0);  // the others may read the directory now
    if (ranks_.size() > 1) {
        const std::int64_t mine = training_fingerprint(model, state);
        if (ranks_.max(mine) != mine || ranks_.max(-mine) != -mine)
            throw Error("the ranks do not all see the same model and checkpoint in " + path_ +
                        ": -o must be a directory every rank shares");
    }
}

std::int64_t training_fingerprint(Model& model, const TrainState& state) {
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&](const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    };
    visit_parameters(model, [&](const std::string&, float* p, std::size_t n) { mix(p, n * sizeof(float)); });
    mix(&state.step, sizeof state.step);
    mix(&state.batch_in_epoch, sizeof state.batch_in_epoch);
    return std::int64_t(h >> 1);
}

}  // namespace tfm
