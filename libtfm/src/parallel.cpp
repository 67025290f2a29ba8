#include "tfm/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tfm {

namespace {

thread_local bool t_in_task = false;

int default_threads() {
    if (const char* env = std::getenv("TFM_THREADS")) {
        int v = std::atoi(env);
        if (v > 0) return v;
    }
    unsigned hc = std::thread::hardware_concurrency();
    return hc ? int(hc) : 1;
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
            active_ = int(workers_.size());
            error_ = nullptr;
            ++generation_;
        }
        cv_.notify_all();
        work();
        std::unique_lock<std::mutex> lk(m_);
        done_cv_.wait(lk, [&] { return active_ == 0; });
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
    int active_ = 0;
    unsigned long generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;

    void work() {
        bool was = t_in_task;
        t_in_task = true;
        for (;;) {
            std::size_t i = next_.fetch_add(1);
            if (i >= n_) break;
            try {
                (*fn_)(i);
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
            {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            work();
            std::lock_guard<std::mutex> lk(m_);
            if (--active_ == 0) done_cv_.notify_one();
        }
    }

    void start_workers() {
        if (!workers_.empty() || threads_ <= 1) return;
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = false;
            generation_ = 0;
        }
        for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
    }

    void stop_workers() {
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = true;
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
    Pool::get().run(n, fn);
}

}  // namespace tfm
