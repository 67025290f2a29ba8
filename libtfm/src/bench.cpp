#include "tfm/bench.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tfm/error.hpp"
#include "tfm/gemm.hpp"
#include "tfm/parallel.hpp"
#include "tfm/random.hpp"

namespace tfm {

double peak_rss_mib() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

bool reset_peak_rss() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
    f.flush();
    return bool(f);
}

Timing time_it(const std::function<void()>& run, const TimingOptions& opt) {
    for (int i = 0; i < opt.warmup; ++i) run();
    Timing t;
    double total = 0;
    while (int(t.seconds.size()) < opt.repetitions || total < opt.min_total_seconds) {
        auto start = std::chrono::steady_clock::now();
        run();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        t.seconds.push_back(s);
        total += s;
    }
    std::vector<double> sorted = t.seconds;
    std::sort(sorted.begin(), sorted.end());
    t.min = sorted.front();
    t.max = sorted.back();
    std::size_t m = sorted.size();
    t.median = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
    return t;
}

double sgemm_gflops(std::size_t n, const TimingOptions& opt) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    Rng rng(1);
    for (auto* v : {&a, &b})
        for (float& x : *v) x = rng.uniform(-1, 1);
    Timing t = time_it([&] { gemm(mat(c.data(), n, n), mat(a.data(), n, n), Op::N, mat(b.data(), n, n), Op::N); }, opt);
    return 2.0 * double(n) * double(n) * double(n) / t.min * 1e-9;
}

MachineInfo machine_info() {
    MachineInfo m;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) m.cpu = line.substr(line.find_first_not_of(" \t", colon + 1));
            break;
        }
    }
    if (m.cpu.empty()) m.cpu = "unknown CPU";
    m.cores = std::thread::hardware_concurrency();
    m.threads = num_threads();
    m.blas = blas_description();
    return m;
}

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
