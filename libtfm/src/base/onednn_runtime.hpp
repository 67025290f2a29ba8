// What every oneDNN call in libtfm shares (internal to libtfm): the CPU engine, and per
// calling thread a stream and scratch memory. oneDNN runs each call on the thread that makes
// it (tfm's pool shares the calls out): Debian's oneDNN threads with OpenMP, and each thread
// that calls it is set to a team of one, so that nothing is oversubscribed and a call's bits
// do not depend on the thread count.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfm::onednn {

dnnl::engine& engine();

// A row-major [rows,cols] matrix of `type` whose rows lie `ld` elements apart.
dnnl::memory::desc matrix_desc(std::size_t rows, std::size_t cols, dnnl::memory::data_type type, std::size_t ld);

struct ThreadRuntime {
    dnnl::stream stream;
    std::vector<std::uint8_t> scratch;  // primitives are made with scratchpad_mode::user
    ThreadRuntime();
    // A memory object over this thread's scratch, grown to `md`'s size.
    dnnl::memory scratch_memory(const dnnl::memory::desc& md);
};
ThreadRuntime& thread_runtime();

}  // namespace tfm::onednn
