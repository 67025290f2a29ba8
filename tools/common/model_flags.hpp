// The architecture flags tfm-init and tfm-train share, and the config they describe.
#pragma once

#include <string>

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

}  // namespace tfm::tool
