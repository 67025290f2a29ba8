#include "model_option.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "tfm/base/error.hpp"

namespace tfm::tool {

namespace {

bool is_dir(const std::string& p) {
    struct stat st {};
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The installed model, relative to this executable (bin/../share/tfm/models/...), so that an
// installation can move as a whole.
std::string installed_model() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    std::string exe(buf, std::size_t(n));
    const auto slash = exe.rfind('/');
    return slash == std::string::npos ? "" : exe.substr(0, slash) + "/../" TFM_DATADIR "/tfm/models/multi30k-de-en";
}

// The default model's directory, or "" when there is none.
std::string default_model() {
    if (const char* env = std::getenv("TFM_MODEL"); env && *env) return env;
    if (std::string p = installed_model(); is_dir(p)) return p;
    if (is_dir(TFM_SOURCE_MODEL)) return TFM_SOURCE_MODEL;
    return "";
}

}  // namespace

void add_model_option(CLI::App& app, std::string& dir) {
    const std::string def = default_model();
    app.add_option("-m,--model", dir,
                   "Model directory (default: $TFM_MODEL, else the German->English model that ships with tfm" +
                       (def.empty() ? std::string(", not found") : ": " + def) + ")")
        ->check(CLI::Validator(
            [](std::string& v) { return v.empty() ? std::string("an empty string names no model directory") : std::string(); },
            "", "nonempty"));
}

std::string model_dir_or_default(const std::string& dir) {
    if (!dir.empty()) return dir;
    std::string def = default_model();
    if (def.empty())
        throw UsageError("no model: give -m DIR or set TFM_MODEL (the model that ships with tfm is not installed)");
    return def;
}

}  // namespace tfm::tool
