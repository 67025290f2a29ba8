// Training checkpoints inside a model directory: checkpoints/step-NNNNNNNN/ holds the weights
// (model.safetensors), Adam's moments (optimizer.safetensors) and state.json (step, epoch,
// position in the epoch, seed, the run's settings), written into a temporary directory and renamed into place so
// that a checkpoint is whole or absent. The directory's own config.json and
// model.safetensors are updated too, so it is always a usable model.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tfm/model/model.hpp"
#include "tfm/train/optimizer.hpp"

namespace tfm {

struct TrainState {
    std::size_t step = 0;            // optimizer updates done
    std::size_t epoch = 0;           // epochs finished
    std::size_t batch_in_epoch = 0;  // batches of the current epoch consumed
    std::uint64_t seed = 1;
    std::size_t batch_parts = 0;     // the parts each batch was cut into (0: not recorded)
    // The run's settings by option name ("warmup", "dropout", ...), recorded so that a run
    // resumes with the settings it was started with (empty: not recorded).
    std::map<std::string, double> settings;
};

// Writes a checkpoint for the state's step, keeps the newest `keep`; returns its path.
std::string save_checkpoint(const std::string& model_dir, const Model& m, Adam& adam, const TrainState& st,
                            std::size_t keep);

// The newest complete checkpoint of a model directory, if any.
std::optional<std::string> latest_checkpoint(const std::string& model_dir);

// Loads a checkpoint into m (whose config must match the checkpoint's: another architecture
// is an error naming the difference), the optimizer and the state.
void load_checkpoint(const std::string& path, Model& m, Adam& adam, TrainState& st);

// The state.json of a checkpoint alone (its settings are needed before the optimizer exists).
TrainState load_checkpoint_state(const std::string& path);

// The newest `count` checkpoints of a model directory, oldest first.
std::vector<std::string> latest_checkpoints(const std::string& model_dir, std::size_t count);

// The element-wise mean of the checkpoints' weights (the paper averages the last 5); all must
// share the config of the first.
Model average_checkpoints(const std::vector<std::string>& paths);

}  // namespace tfm
