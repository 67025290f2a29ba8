// Measuring: repeated timings, this machine's own sgemm throughput (the yardstick every
// figure is divided by) and a description of the machine. Sweep ranges: common/ranges.hpp.
#pragma once

#include "tfm/base/compute_type.hpp"
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tfm {

struct Timing {
    std::vector<double> seconds;  // one per repetition
    double min = 0, median = 0, max = 0;
};

struct TimingOptions {
    int warmup = 1;
    int repetitions = 5;
    double min_total_seconds = 0;  // repeat more while the total is shorter than this
};

Timing time_it(const std::function<void()>& run, const TimingOptions& opt = {});

// GFLOP/s of cblas_sgemm on n x n x n (best repetition), measured now.
double sgemm_gflops(std::size_t n, const TimingOptions& opt = {});
// GFLOP/s of the packed product (base/packed_matrix.hpp) of an n x n weight in compute type
// t with n x n activations, measured the same way: the peak of that type's kernels here.
double packed_gflops(std::size_t n, ComputeType t, const TimingOptions& opt = {});

struct MachineInfo {
    std::string cpu;      // model name from /proc/cpuinfo
    unsigned cores = 0;   // online CPUs
    int threads = 0;        // threads tfm uses (parallel.hpp)
    std::string blas;     // library and core type
    std::string packed;   // the instruction set oneDNN's packed products dispatch to
};
MachineInfo machine_info();

// Peak resident memory of this process (VmHWM) in MiB, and its reset to the current resident
// size (Linux's /proc/self/clear_refs), so that a measurement's own peak can be read; false
// when the kernel does not allow the reset (the peak is then the process's so far).
double peak_rss_mib();
bool reset_peak_rss();

}  // namespace tfm
