#include "model_option.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include "tfm/error.hpp"

namespace tfm::tool {

namespace {
bool is_dir(const std::string& p) {
    struct stat st {};
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
}  // namespace

void add_model_option(CLI::App& app, std::string& dir) {
    app.add_option("-m,--model", dir,
                   "Model directory (default: $TFM_MODEL, else the German->English model that ships with tfm)");
}

std::string model_dir_or_default(const std::string& dir) {
    if (!dir.empty()) return dir;
    if (const char* env = std::getenv("TFM_MODEL"); env && *env) return env;
    if (is_dir(TFM_INSTALLED_MODEL)) return TFM_INSTALLED_MODEL;
    if (is_dir(TFM_SOURCE_MODEL)) return TFM_SOURCE_MODEL;
    throw UsageError("no model: give -m DIR (or set TFM_MODEL); the default model (" + std::string(TFM_INSTALLED_MODEL) +
                     ") is not installed");
}

}  // namespace tfm::tool
