#include "common/ranges.hpp"

#include <algorithm>
#include <sstream>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {
std::size_t parse_count(const std::string& s, const std::string& spec) {
    std::size_t pos = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(s, &pos);
    } catch (const std::exception&) {
        pos = std::string::npos;
    }
    if (pos != s.size() || s.empty() || s[0] == '-')
        throw UsageError("bad range '" + spec.substr(0, 80) + "': '" + s.substr(0, 40) + "' is not a positive integer");
    return std::size_t(v);
}
}  // namespace

std::vector<std::size_t> parse_range(const std::string& spec, std::size_t lo_limit, std::size_t hi_limit) {
    const auto checked = [&](std::vector<std::size_t> out) {
        std::vector<std::size_t> sorted = out;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (sorted[i] < lo_limit || sorted[i] > hi_limit)
                throw UsageError("bad range '" + spec.substr(0, 80) + "': " + std::to_string(sorted[i]) +
                                 " is outside " + std::to_string(lo_limit) + ".." + std::to_string(hi_limit));
            if (i > 0 && sorted[i] == sorted[i - 1])
                throw UsageError("bad range '" + spec.substr(0, 80) + "': " + std::to_string(sorted[i]) +
                                 " appears twice");
        }
        return out;
    };
    std::vector<std::size_t> out;
    if (spec.find(':') == std::string::npos) {
        std::stringstream ss(spec);
        std::string item;
        while (std::getline(ss, item, ',')) {
            out.push_back(parse_count(item, spec));
            if (out.size() > 10000) throw UsageError("list '" + spec.substr(0, 80) + "...' has more than 10000 values");
        }
        if (out.empty()) throw UsageError("empty range");
        return checked(out);
    }
    std::stringstream ss(spec);
    std::string lo_s, hi_s, step_s;
    std::getline(ss, lo_s, ':');
    std::getline(ss, hi_s, ':');
    std::getline(ss, step_s);
    std::size_t lo = parse_count(lo_s, spec), hi = parse_count(hi_s, spec);
    if (lo == 0 || hi < lo) throw UsageError("bad range '" + spec.substr(0, 80) + "': needs 0 < start <= end");
    if (hi > hi_limit) throw UsageError("bad range '" + spec.substr(0, 80) + "': the end is more than " + std::to_string(hi_limit));
    if (step_s.empty()) step_s = "x2";
    bool geometric = step_s[0] == 'x' || step_s[0] == '*';
    bool arithmetic = step_s[0] == '+';
    std::size_t step = parse_count(geometric || arithmetic ? step_s.substr(1) : step_s, spec);
    if ((geometric && step < 2) || step == 0 || step > hi_limit)
        throw UsageError("bad range '" + spec + "': the step must grow the value");
    for (std::size_t v = lo; v <= hi; v = geometric ? v * step : v + step) {
        out.push_back(v);
        if (out.size() > 10000) throw UsageError("range '" + spec.substr(0, 80) + "' has more than 10000 points");
    }
    return checked(out);
}

}  // namespace tfm
