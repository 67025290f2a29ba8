// Lists and sweeps of sizes given on the command line: "256:4096:x2" (geometric),
// "128:1024:+128" (arithmetic), "64,128,512" or "512".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tfm {

// The values of spec in the order given; a value outside [lo, hi], given twice, or more than
// 10000 of them is a UsageError that quotes the spec.
std::vector<std::size_t> parse_range(const std::string& spec, std::size_t lo = 1,
                                     std::size_t hi = std::size_t(1) << 20);

}  // namespace tfm
