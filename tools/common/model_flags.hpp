// The architecture flags tfm-init and tfm-train share, the config they describe, and the one
// way both create a new model directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/model/config.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm::tool {

struct ArchFlags {
    std::string preset = "base", positions, norm, activation;
    std::size_t max_positions = 0, layers = 0, d_model = 0, heads = 0, ffn = 0;
    bool untied = false;
};

void add_arch_flags(CLI::App& app, ArchFlags& f);
// True when the user named any architecture flag on the command line.
bool arch_flags_given(const CLI::App& app);

// The SentencePiece model(s) of a new model: one for both sides (shared embeddings), or one
// per side (separate source and target embeddings and vocabularies).
struct SpmChoice {
    std::string source, target;
    bool shared = true;
};

// The config the flags describe for the SentencePiece models' pieces and special ids; an
// impossible combination (D % H, special ids that differ between the sides, ...) is a usage error.
ModelConfig config_from_flags(const ArchFlags& f, const SpmChoice& spm);

// A UsageError when `copies` float32 copies of the config's parameters (1: a model; 4:
// training's weights, gradients and Adam moments) would not fit in this machine's memory.
void check_fits_in_memory(const ModelConfig& c, std::size_t copies);

// Where a new model's vocabulary comes from: existing SentencePiece models (one shared, or a
// source and a target one), or text to train them on (one shared model on all texts, or with
// `separate` one per side).
struct VocabularySource {
    std::vector<std::string> spm;                         // 1 or 2 models, or empty
    std::vector<std::string> source_texts, target_texts;  // to train on when spm is empty
    bool separate = false;
    SpmTrainOptions training;
};

// Fills the (staged, empty) directory dir with a new model: its SentencePiece models (trained
// or copied), config.json from the flags, and weights drawn from seed. `copies` is what
// check_fits_in_memory checks first (1: a model; 4: training). Returns the config.
ModelConfig create_model(const std::string& dir, const ArchFlags& arch, const VocabularySource& vocab,
                         std::uint64_t seed, std::size_t copies);

}  // namespace tfm::tool
