// tfm's one thread pool. Every parallel loop in the library goes through parallel_for, and
// BLAS itself runs single-threaded inside it: large products are split by rows or columns
// across the pool (gemm.cpp), attention by (head, query block). One pool means no
// oversubscription, and because no output element is ever split across threads, results are
// bit-identical whatever the thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace tfm {

// The most threads the pool takes (--threads, TFM_THREADS).
constexpr int kMaxThreads = 1024;

// Threads used (the caller counts as one). Default: the TFM_THREADS environment variable,
// else the number of CPUs this process may run on (its affinity mask).
int num_threads();
void set_num_threads(int n);  // n <= 0 restores the default

// Runs fn(i) for every i in [0, n), spread over the pool; returns when all are done. The
// first exception thrown by a task is rethrown here. Calls from inside a task run serially.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

// fn(first, last) over [0, n) cut into blocks of `block` indices, the blocks in parallel.
template <class F>
void parallel_blocks(std::size_t n, std::size_t block, F&& fn) {
    parallel_for((n + block - 1) / block, [&](std::size_t b) {
        const std::size_t first = b * block;
        fn(first, n - first < block ? n : first + block);
    });
}

// data[0, n) = value, in blocks over the pool.
void parallel_fill(float* data, std::size_t n, float value = 0.0f);

// True inside a parallel_for task.
bool in_parallel();

}  // namespace tfm
