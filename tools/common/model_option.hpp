// The -m/--model option of the tools that run a model. Without it they use the default model:
// $TFM_MODEL, else the model installed with tfm (bin/../share/tfm/models/multi30k-de-en), else
// the one in the source tree the tools were built from. --help names the one found. A bare
// name that is no directory here names a shipped model (-m multi30k-de-en).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tfm::tool {

void add_model_option(CLI::App& app, std::string& dir);
// dir if given (a shipped model's directory when dir is the bare name of one and no directory
// here), else the default model's directory; a UsageError when there is none.
std::string model_dir_or_default(const std::string& dir);

}  // namespace tfm::tool
