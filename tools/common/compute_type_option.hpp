// --compute-type of the tools that run a translation model (tfm-translate, tfm-encode,
// tfm-decode, tfm-score): the arithmetic of its weight products, packed once at load; and
// tfm-train's, the arithmetic of the products of forward and backward.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tfm/base/compute_type.hpp"

namespace tfm::tool {

// float32 (default) | bfloat16 | int8 | auto (the fastest this CPU has).
void add_compute_type_option(CLI::App& app, std::string& type);
// The type named (float32 when none was given), for load_model_dir to pack the weights in as
// it reads them; a runtime error naming the instructions it needs when this CPU lacks them.
ComputeType compute_type(const std::string& type);

// tfm-train's: float32 (default) | bfloat16 | auto (bfloat16 where the CPU has the units);
// train/trainer.hpp's choose_training_compute decides.
void add_training_compute_type_option(CLI::App& app, std::string& type);

}  // namespace tfm::tool
