// The one validator every numeric option goes through: its documented range, with NaN, Inf
// and values that do not fit refused as usage errors (exit 2) that name the option, e.g.
// "--beam: must be from 1 to 1024, got 0". Sizes are capped where products computed from
// them (batch x beam x length, ...) would otherwise overflow.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/model/config.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm::tool {

// [lo, hi], or [lo, hi) when hi_open (probabilities: "from 0 to below 1").
CLI::Validator in_range(double lo, double hi, bool hi_open = false);

// A list or range option ("0,5", "256:4096:x2"; see tfm::parse_range): values within [lo, hi],
// none twice; errors are UsageErrors that name the option.
std::vector<std::size_t> option_range(const std::string& option, const std::string& spec, std::size_t lo = 1,
                                      std::size_t hi = std::size_t(1) << 20);

// Caps shared by the tools (model sizes and threads: the library's own bounds).
constexpr double kMaxThreads = tfm::kMaxThreads;
constexpr double kMaxBatch = 1 << 16;       // sentences per batch
constexpr double kMaxWindow = 1 << 20;      // sentences read ahead
constexpr double kMaxLength = 1 << 20;      // tokens
constexpr double kMaxDim = double(tfm::kMaxModelDim);  // D, H, head and hidden sizes
constexpr double kMaxCount = 1e15;          // steps, positions, seeds of counts

}  // namespace tfm::tool
