// The model directory of a training run, as the ranks of a job share it. A new run's model is
// made in a staging directory beside its place and moved in only once its training data have
// been read and checked, so a refusal leaves nothing behind; a directory in training is locked
// against a second run; a resumed run continues from its newest checkpoint. Rank 0 makes,
// locks and moves the directory; the other ranks wait for it, then every rank checks that it
// holds the same model at the same position (-o must be a directory all of them see).
//
// Use: RunDirectory dir(path, resume, ranks); dir.create(make) on a new run; load the model
// from dir.model_path(), resume from dir.checkpoint(); dir.commit(model, state) once the data
// are checked; then train into dir.path().
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tfm/io/dir_guard.hpp"
#include "tfm/model/model.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/collective.hpp"

namespace tfm {

class RunDirectory {
public:
    // Refuses a resume where no model is (Error), and a new run over a model (UsageError). On
    // a new run, ranks other than 0 wait here until rank 0 has committed the model.
    RunDirectory(std::string path, bool resume, Collective& ranks);

    // A new run: make(dir) writes the new model into dir (rank 0; nothing on other ranks or
    // on resume). An Error it throws names path(), not the staging directory.
    void create(const std::function<void(const std::string& dir)>& make);
    // Where the model is read from now: the staging directory until commit, else path().
    const std::string& model_path() const;
    const std::string& path() const { return path_; }
    // The checkpoint a resumed run continues from (none before its first save, or when new).
    const std::optional<std::string>& checkpoint() const { return checkpoint_; }
    // A new run's config.json, written into the staging directory (nothing otherwise: a
    // resumed run's config is written with its checkpoints).
    void write_config(const ModelConfig& config) const;
    // The data are checked: a new model takes its place and is locked; the other ranks may
    // now read it, and every rank checks that they all hold model at state's position (Error
    // otherwise).
    void commit(Model& model, const TrainState& state);

private:
    std::string path_;
    bool resume_;
    Collective& ranks_;
    std::optional<StagedDir> staged_;
    std::optional<DirLock> lock_;
    std::optional<std::string> checkpoint_;
};

// A 64-bit FNV-1a hash of the model's weights and the position in training (step, batch in
// the epoch), made non-negative: equal on ranks that hold the same model at the same point.
std::int64_t training_fingerprint(Model& model, const TrainState& state);

}  // namespace tfm
