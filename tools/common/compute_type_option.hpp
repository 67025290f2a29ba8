// --compute-type of the tools that run a translation model (tfm-translate, tfm-encode,
// tfm-decode, tfm-score): the arithmetic of its weight products, packed once at load.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tfm/model/model.hpp"

namespace tfm::tool {

// float32 (default) | bfloat16 | int8 | auto (the fastest this CPU has).
void add_compute_type_option(CLI::App& app, std::string& type);
// m packed for inference in that type; a runtime error naming the instructions it needs when
// this CPU lacks them.
void pack_model(Model& m, const std::string& type);

}  // namespace tfm::tool
