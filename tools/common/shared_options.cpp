#include "shared_options.hpp"

#include <algorithm>

#include "checks.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm::tool {

void add_threads_option(CLI::App& app, int& threads) {
    app.add_option("--threads", threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(in_range(1, kMaxThreads));
}

void add_batch_options(CLI::App& app, std::size_t& batch, std::size_t& window) {
    app.add_option("--batch-size", batch, "Inputs (lines, pairs or records) per batch (default 32)")
        ->check(in_range(1, kMaxBatch));
    app.add_option("--window", window,
                   "Inputs read ahead and sorted by length (default 8 x batch size, or a batch per thread if more; "
                   "a window also ends where the input would have to be waited for)")
        ->check(in_range(1, kMaxWindow));
}

std::size_t read_ahead(std::size_t window, std::size_t batch) {
    return window ? window : std::max<std::size_t>(8, std::size_t(num_threads())) * batch;
}

void add_input_ids_flag(CLI::App& app, bool& ids) {
    app.add_flag("--input-ids", ids, "Input lines are integer ids (eos appended unless present), not text");
}

void add_output_ids_flag(CLI::App& app, bool& ids) {
    app.add_flag("--output-ids", ids, "Print token ids instead of text");
}

}  // namespace tfm::tool
