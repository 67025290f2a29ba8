// --dtype of the tools that write a model directory's weights (tfm-export, tfm-marian import).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tfm::tool {

// f32 (default) | f16 | bf16 | int8 (weight matrices as int8 rows with a scale per row).
void add_weights_dtype_option(CLI::App& app, std::string& dtype);
// The safetensors dtype of that name: F32, F16, BF16 or I8.
std::string weights_dtype(const std::string& dtype);

}  // namespace tfm::tool
