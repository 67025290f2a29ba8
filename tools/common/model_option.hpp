// The -m/--model option of the tools that run a model. Without it they use the default model:
// $TFM_MODEL, else the model installed with tfm (bin/../share/tfm/models/multi30k-de-en), else
// the one in the source tree the tools were built from. --help names the one found.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tfm::tool {

void add_model_option(CLI::App& app, std::string& dir);
// dir if given, else the default model's directory; a UsageError when there is none.
std::string model_dir_or_default(const std::string& dir);

}  // namespace tfm::tool
