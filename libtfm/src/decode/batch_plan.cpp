#include "tfm/decode/batch_plan.hpp"

#include <algorithm>

#include "tfm/base/parallel.hpp"

namespace tfm {

namespace {

// Sharing every product of a decoding step among the threads pays only where the products are
// large and thin: the base model's greedy search streams 105 MB of fp32 weights a step, and on
// 2 cores (two Xeons) the threads sharing each product are 3-9% faster than each thread
// streaming all the weights for 16 rows of its own, 2% faster for 32 rows, and 4-7% slower for
// 64 (beam 4). Where the weights are small (the small model: 20 MB), parts of their own are
// 1.7-1.9x as fast (docs/design.md has the figures).
bool share_products(const Model& m, std::size_t rows) {
    return rows < kThinRows && decoder_step_weight_bytes(m) >= kLargeStep;
}

}  // namespace

BatchPlan plan_batches(const Model& m, std::vector<std::vector<std::size_t>> batches, std::size_t beam) {
    const std::size_t threads = std::size_t(num_threads()), n = batches.size();
    if (n == 0 || threads < 2 || in_parallel()) return {std::move(batches), false};
    // Whether threads of their own, each taking parts as wide as the widest of these (parts
    // differ by one; batches are mostly full), beat the threads sharing each product.
    auto own = [&](const std::vector<std::vector<std::size_t>>& parts) {
        std::size_t widest = 0;
        for (const auto& p : parts) widest = std::max(widest, p.size());
        return parts.size() >= threads && !share_products(m, widest * std::max<std::size_t>(beam, 1));
    };
    if (n >= threads) {
        const bool o = own(batches);
        return {std::move(batches), o};
    }
    // Parts of batches, as many as the threads: rows change company with the thread count,
    // which keeps results the same only where a packed row's bits do not depend on its company.
    if (m.output_packed && !m.output_packed->rows_independent()) return {std::move(batches), false};
    const std::size_t per = (threads + n - 1) / n;  // parts of each batch
    std::vector<std::vector<std::size_t>> parts;
    for (const auto& b : batches) {
        const std::size_t k = std::min(per, b.size()), first = parts.size();
        parts.resize(first + k);
        for (std::size_t i = 0; i < b.size(); ++i) parts[first + i % k].push_back(b[i]);
    }
    if (own(parts)) return {std::move(parts), true};
    return {std::move(batches), false};
}

}  // namespace tfm
