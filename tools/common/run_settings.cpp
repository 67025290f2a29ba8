#include "run_settings.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tfm/base/error.hpp"

namespace tfm::tool {

namespace {
// The fewest significant digits that read back as v (100, 0.3).
std::string shortest(double v) {
    char b[32];
    if (v > -1e15 && v < 1e15 && v == double(std::int64_t(v))) {  // whole numbers as such (100, not 1e+02)
        std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
        return b;
    }
    for (int digits = 1;; ++digits) {
        std::snprintf(b, sizeof b, "%.*g", digits, v);
        if (digits == 17 || std::strtod(b, nullptr) == v) return b;
    }
}
}  // namespace

std::string RunSettings::Entry::name() const { return option->get_lnames().front(); }

std::map<std::string, double> RunSettings::record() const {
    std::map<std::string, double> out;
    for (const Entry& e : entries_) out[e.name()] = e.get();
    return out;
}

void RunSettings::resume(const std::map<std::string, double>& recorded, const std::string& where,
                         const std::function<void(const std::string&)>& note) {
    for (Entry& e : entries_) {
        const auto it = recorded.find(e.name());
        if (it == recorded.end()) continue;
        const std::string run_value = shortest(it->second);
        if (e.option->count() == 0) {
            if (const std::string err = e.check(run_value); !err.empty())
                throw Error(where + ": the recorded --" + e.name() + " " + run_value + " is out of range: " + err);
            e.set(it->second);
        } else if (e.get() != it->second) {
            note("--" + e.name() + " " + shortest(e.get()) + " replaces the run's " + run_value);
        }
    }
}

}  // namespace tfm::tool
