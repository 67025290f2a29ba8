// How a translation call's batches go to the threads: each thread decoding batches of its
// own, or the batches one after another with the threads sharing every product.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/model/model.hpp"

namespace tfm {

// A step that multiplies at least this many bytes of weights (decoder_step_weight_bytes) for
// fewer than kThinRows rows shares its products among the threads.
constexpr std::size_t kLargeStep = std::size_t(64) << 20;
constexpr std::size_t kThinRows = 64;

struct BatchPlan {
    std::vector<std::vector<std::size_t>> batches;  // indices of the call's sentences
    bool own = false;  // true: the threads take batches of their own; false: one after another
};

// The plan for `batches` (length_batches) searched with `beam` rows per sentence on
// num_threads() threads. With fewer batches than threads, each batch is dealt out round-robin
// into as many parts as it takes to give every thread one, at most one per sentence (so that
// each part keeps the batch's spread of lengths). The threads take parts of their own when there
// is one for each and a part's rows (sentences x beam) are not thin against large weights;
// otherwise the batches, not cut, run one after another. Inside a parallel task, or on one
// thread, they run in turn. A sentence's translation depends on neither.
BatchPlan plan_batches(const Model& m, std::vector<std::vector<std::size_t>> batches, std::size_t beam);

}  // namespace tfm
