#include "onednn_runtime.hpp"

// Weak, so that a oneDNN on another threading runtime needs nothing of libgomp.
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace tfm::onednn {

dnnl::engine& engine() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

dnnl::memory::desc matrix_desc(std::size_t rows, std::size_t cols, dnnl::memory::data_type type, std::size_t ld) {
    using dims = dnnl::memory::dims;
    return dnnl::memory::desc(dims{dnnl::memory::dim(rows), dnnl::memory::dim(cols)}, type,
                              dims{dnnl::memory::dim(ld), 1});
}

ThreadRuntime::ThreadRuntime() : stream(engine()) {
    if (omp_set_num_threads) omp_set_num_threads(1);
}

dnnl::memory ThreadRuntime::scratch_memory(const dnnl::memory::desc& md) {
    if (scratch.size() < md.get_size()) scratch.resize(md.get_size());
    return dnnl::memory(md, engine(), scratch.data());
}

ThreadRuntime& thread_runtime() {
    thread_local ThreadRuntime r;
    return r;
}

}  // namespace tfm::onednn
