#include "model_option.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "tfm/base/error.hpp"

namespace tfm::tool {

namespace {

constexpr const char* kDefaultModel = "multi30k-de-en";

bool is_dir(const std::string& p) {
    struct stat st {};
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The shipped models' directories: installed relative to this executable
// (bin/../share/tfm/models, so that an installation can move as a whole), then the source
// tree's share/models.
std::vector<std::string> model_homes() {
    std::vector<std::string> homes;
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        std::string exe(buf, std::size_t(n));
        const auto slash = exe.rfind('/');
        if (slash != std::string::npos) homes.push_back(exe.substr(0, slash) + "/../" TFM_DATADIR "/tfm/models");
    }
    homes.push_back(TFM_SOURCE_MODELS);
    return homes;
}

// The shipped model called name, or "" when none is.
std::string shipped_model(const std::string& name) {
    for (const std::string& home : model_homes())
        if (is_dir(home + "/" + name)) return home + "/" + name;
    return "";
}

// The default model's directory, or "" when there is none.
std::string default_model() {
    if (const char* env = std::getenv("TFM_MODEL"); env && *env) return env;
    return shipped_model(kDefaultModel);
}

}  // namespace

void add_model_option(CLI::App& app, std::string& dir) {
    const std::string def = default_model();
    app.add_option("-m,--model", dir,
                   "Model directory, or the name of a model that ships with tfm (default: $TFM_MODEL, else the "
                   "German->English model that ships with tfm" +
                       (def.empty() ? std::string(", not found") : ": " + def) + ")")
        ->check(CLI::Validator(
            [](std::string& v) { return v.empty() ? std::string("an empty string names no model directory") : std::string(); },
            "", "nonempty"));
}

std::string model_dir_or_default(const std::string& dir) {
    // A directory here wins; a bare name that is none is a shipped model's.
    if (!dir.empty() && (is_dir(dir) || dir.find('/') != std::string::npos)) return dir;
    if (!dir.empty()) {
        std::string shipped = shipped_model(dir);
        return shipped.empty() ? dir : shipped;
    }
    std::string def = default_model();
    if (def.empty())
        throw UsageError("no model: give -m DIR or set TFM_MODEL (the model that ships with tfm is not installed)");
    return def;
}

}  // namespace tfm::tool
