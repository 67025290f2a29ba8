// The architecture flags tfm-init and tfm-train share, and the config they describe.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tfm/config.hpp"
#include "tfm/tokenizer.hpp"

namespace tfm::tool {

struct ArchFlags {
    std::string preset = "base", positions, norm, activation;
    std::size_t max_positions = 0, layers = 0, d_model = 0, heads = 0, ffn = 0;
    bool untied = false;
};

void add_arch_flags(CLI::App& app, ArchFlags& f);
// True when the user named any architecture flag on the command line.
bool arch_flags_given(const CLI::App& app);

// The config the flags describe for a SentencePiece model's pieces and special ids; an
// impossible combination (D % H, ...) is a usage error.
ModelConfig config_from_flags(const ArchFlags& f, const SpmInfo& spm, const std::string& spm_path);

}  // namespace tfm::tool
