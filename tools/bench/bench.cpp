#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tfm/base/packed_matrix.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/gemm.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/random.hpp"

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

double packed_gflops(std::size_t n, ComputeType t, const TimingOptions& opt) {
    std::vector<float> a(n * n), w(n * n), c(n * n);
    Rng rng(1);
    for (auto* v : {&a, &w})
        for (float& x : *v) x = rng.uniform(-1, 1);
    const PackedMatrix p(mat(w.data(), n, n), t);
    Timing tm = time_it([&] { p.multiply(mat(c.data(), n, n), mat(a.data(), n, n)); }, opt);
    return 2.0 * double(n) * double(n) * double(n) / tm.min * 1e-9;
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
    m.packed = "oneDNN " + compute_isa_name();
    return m;
}

}  // namespace tfm
