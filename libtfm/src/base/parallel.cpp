#include "tfm/base/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <system_error>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/base/gemm.hpp"

namespace tfm {

namespace {

thread_local bool t_in_task = false;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

int default_threads() {
    if (const char* env = std::getenv("TFM_THREADS")) {
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(env, &end, 10);
        if (*env == '\0' || *end != '\0' || errno != 0 || v < 1 || v > kMaxThreads)
            throw UsageError("TFM_THREADS='" + std::string(env).substr(0, 40) + "' must be an integer from 1 to " +
                             std::to_string(kMaxThreads));
        return int(v);
    }
    // The CPUs this process may run on (taskset, cgroups' cpusets, an MPI launcher's binding),
    // not all the machine has.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return std::min(CPU_COUNT(&set), kMaxThreads);
    unsigned hc = std::thread::hardware_concurrency();
    return hc ? std::min(int(hc), kMaxThreads) : 1;
}

// Spins this long for new work (a worker) or for the last task (the caller) before sleeping
// on a condition variable: a training step runs hundreds of short parallel loops, and a
// sleeping thread takes tens of microseconds to wake (longer on a virtual machine).
constexpr auto kSpin = std::chrono::microseconds(50);

// Waits until ready() holds: spins up to kSpin, then returns false (the caller then sleeps).
template <class Ready>
bool spin_until(Ready&& ready) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1;; ++i) {
        if (ready()) return true;
        cpu_relax();
        if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return ready();
    }
}

class Pool {
public:
    static Pool& get() {
        static Pool pool;
        return pool;
    }

    int threads() const { return threads_; }
    void set_threads(int n) {
        std::lock_guard<std::mutex> run_lock(run_mutex_);
        stop_workers();
        if (n > kMaxThreads)
            throw UsageError(std::to_string(n) + " threads: at most " + std::to_string(kMaxThreads));
        threads_ = n > 0 ? n : default_threads();
    }

    void run(std::size_t n, const std::function<void(std::size_t)>& fn) {
        std::lock_guard<std::mutex> run_lock(run_mutex_);  // one parallel loop at a time
        start_workers();
        {
            std::lock_guard<std::mutex> lk(m_);
            fn_ = &fn;
            n_ = n;
            next_.store(0);
            active_.store(int(workers_.size()));
            error_ = nullptr;
            generation_.fetch_add(1, std::memory_order_release);
        }
        cv_.notify_all();
        work();
        if (!spin_until([&] { return active_.load(std::memory_order_acquire) == 0; })) {
            std::unique_lock<std::mutex> lk(m_);
            done_cv_.wait(lk, [&] { return active_.load(std::memory_order_acquire) == 0; });
        }
        fn_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

    ~Pool() { stop_workers(); }

private:
    int threads_ = default_threads();
    std::vector<std::thread> workers_;
    std::mutex run_mutex_, m_;
    std::condition_variable cv_, done_cv_;
    const std::function<void(std::size_t)>* fn_ = nullptr;
    std::size_t n_ = 0;
    std::atomic<std::size_t> next_{0};
    std::atomic<int> active_{0};
    std::atomic<unsigned long> generation_{0};
    std::atomic<bool> stop_{false};
    std::exception_ptr error_;

    // Claims tasks a few at a time (many small tasks, as in attention over short sentences,
    // would otherwise pass one counter back and forth between the cores) and runs them.
    void work() {
        bool was = t_in_task;
        t_in_task = true;
        const std::size_t grab = std::max<std::size_t>(1, n_ / (std::size_t(threads_) * 16));
        for (;;) {
            const std::size_t first = next_.fetch_add(grab);
            if (first >= n_) break;
            const std::size_t last = std::min(n_, first + grab);
            try {
                for (std::size_t i = first; i < last; ++i) (*fn_)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lk(m_);
                if (!error_) error_ = std::current_exception();
                next_.store(n_);  // skip the remaining tasks
            }
        }
        t_in_task = was;
    }

    void worker_loop() {
        unsigned long seen = 0;
        for (;;) {
            auto ready = [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; };
            if (!spin_until(ready)) {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, ready);
            }
            if (stop_.load()) return;
            {
                std::lock_guard<std::mutex> lk(m_);  // fn_, n_ and error_ as run() set them
                seen = generation_.load();
            }
            work();
            if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lk(m_);
                done_cv_.notify_one();
            }
        }
    }

    void start_workers() {
        if (!workers_.empty() || threads_ <= 1) return;
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_.store(false);
            generation_.store(0);
        }
        try {
            for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
        } catch (const std::system_error& e) {
            const std::size_t started = workers_.size() + 1;
            stop_workers();
            throw Error("cannot start " + std::to_string(threads_) + " threads (the system allowed " +
                        std::to_string(started) + "): " + e.code().message() + "; set --threads or TFM_THREADS lower");
        }
    }

    void stop_workers() {
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_.store(true);
        }
        cv_.notify_all();
        for (auto& w : workers_) w.join();
        workers_.clear();
    }
};

}  // namespace

int num_threads() { return Pool::get().threads(); }

void set_num_threads(int n) { Pool::get().set_threads(n); }

bool in_parallel() { return t_in_task; }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
    if (n == 0) return;
    if (n == 1 || t_in_task || num_threads() <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    // The caller's product precision (gemm.hpp) holds in its tasks, whichever thread runs them.
    const ComputeType precision = ProductPrecision::current();
    if (precision == ComputeType::Float32) {
        Pool::get().run(n, fn);
        return;
    }
    const std::function<void(std::size_t)> carried = [&](std::size_t i) {
        const ProductPrecision in_task(precision);
        fn(i);
    };
    Pool::get().run(n, carried);
}

void parallel_fill(float* data, std::size_t n, float value) {
    parallel_blocks(n, std::size_t(1) << 16, [&](std::size_t first, std::size_t last) {
        std::fill(data + first, data + last, value);
    });
}

}  // namespace tfm
