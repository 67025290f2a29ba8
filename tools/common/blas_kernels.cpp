// OpenBLAS's kernels for CPUs it does not know. OpenBLAS picks its kernels once, when it is
// loaded, from the CPU's family and model numbers; a CPU newer than the OpenBLAS build (or a
// virtual CPU that reports a generic model, as cloud machines do) gets the generic Prescott
// (SSE3) kernels, 4 to 7 times slower than the AVX2 or AVX-512 ones the CPU runs: sgemm at
// 20-30 GFLOP/s against 105-180 on a 2-core Xeon with AVX-512 (`tfm-bench sgemm`, one and two
// threads), and training of the small preset under 700 target tokens/s against 2,700.
// OpenBLAS takes its choice from OPENBLAS_CORETYPE only when it loads, so each tool, before
// main, runs itself again with OPENBLAS_CORETYPE naming the kernels the CPU's instruction set
// allows (SkylakeX for AVX-512, Haswell for AVX2 + FMA). OPENBLAS_CORETYPE set by the user
// always wins, and is the way to pin kernels (docs/numerics.md). Only the tools do this: a
// program that embeds libtfm keeps its own process.

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

extern "C" char* openblas_get_corename(void);

namespace {

// Kernels older than AVX2: what OpenBLAS falls back to for a CPU it does not recognise.
bool generic_kernels(std::string core) {
    for (char& c : core) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* old : {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "sandybridge"})
        if (core == old) return true;
    return false;
}

// The kernels this CPU can run that OpenBLAS did not pick, or nullptr.
const char* better_kernels() {
    const char* core = openblas_get_corename();
    if (!core || !generic_kernels(core)) return nullptr;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
    return nullptr;
}

// glibc calls constructors with the program's arguments. This runs before main: nothing has
// been read or written, MPI has not started; exec ends OpenBLAS's idle threads with the rest
// of the process. If the exec fails the tool goes on with the generic kernels: slower, the
// same results within rounding.
__attribute__((constructor)) void use_the_cpus_blas_kernels(int /*argc*/, char** argv, char** /*envp*/) {
    if (std::getenv("OPENBLAS_CORETYPE") || !argv || !argv[0]) return;
    const char* kernels = better_kernels();
    if (!kernels) return;
    // The executable's own path, not /proc/self/exe: the process keeps its name (ps, pgrep).
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    self[n] = '\0';
    if (::setenv("OPENBLAS_CORETYPE", kernels, 1) != 0) return;
    ::execv(self, argv);
    ::unsetenv("OPENBLAS_CORETYPE");
}

}  // namespace
