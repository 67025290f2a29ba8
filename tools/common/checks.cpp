#include "checks.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/ranges.hpp"
#include "tfm/base/error.hpp"

namespace tfm::tool {

namespace {
std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}
}  // namespace

CLI::Validator in_range(double lo, double hi, bool hi_open) {
    const std::string want = "must be from " + number(lo) + " to " + (hi_open ? "below " : "") + number(hi);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            const char* s = text.c_str();
            char* end = nullptr;
            const double v = std::strtod(s, &end);
            if (text.empty() || end != s + text.size()) return "'" + text.substr(0, 40) + "' is not a number";
            if (!std::isfinite(v) || v < lo || v > hi || (hi_open && v >= hi))
                return want + ", got " + text.substr(0, 40);
            return std::string();
        },
        "[" + number(lo) + ", " + number(hi) + (hi_open ? ")" : "]"), "in_range");
}

std::vector<std::size_t> option_range(const std::string& option, const std::string& spec, std::size_t lo,
                                      std::size_t hi) {
    try {
        return parse_range(spec, lo, hi);
    } catch (const UsageError& e) {
        throw UsageError(option + ": " + e.what());
    }
}

}  // namespace tfm::tool
