// The options several tools take, each defined once here so that a name means one thing in
// every tool (tests/cli/option_names.sh holds the tools to it): --threads, --batch-size and
// --window, --input-ids and --output-ids.
#pragma once

#include <cstddef>

#include <CLI/CLI.hpp>

namespace tfm::tool {

// --threads N (default: all CPUs, or TFM_THREADS).
void add_threads_option(CLI::App& app, int& threads);

// --batch-size N (inputs per batch) and --window N (inputs read ahead and sorted by length).
void add_batch_options(CLI::App& app, std::size_t& batch, std::size_t& window);
// The inputs to read ahead: --window, else 8 batches, or a batch per thread when there are
// more threads (whole batches run one per thread: decode/translator.hpp).
std::size_t read_ahead(std::size_t window, std::size_t batch);

// --input-ids: input lines are integer ids, not text.
void add_input_ids_flag(CLI::App& app, bool& ids);
// --output-ids: print token ids instead of text.
void add_output_ids_flag(CLI::App& app, bool& ids);

}  // namespace tfm::tool
