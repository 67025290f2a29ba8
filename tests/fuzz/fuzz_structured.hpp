// Choices for the structure-aware fuzz targets: sizes, offsets and strides drawn so that the
// values where reader arithmetic breaks (powers of two near 2^32, 2^61 to 2^64, values that
// wrap when added or multiplied, negatives) come up as often as small, valid ones.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tfm_fuzz {

inline std::int64_t interesting_int(FuzzedDataProvider& fdp) {
    static const std::int64_t edges[] = {0,
                                         1,
                                         2,
                                         3,
                                         4,
                                         16,
                                         std::int64_t(1) << 31,
                                         std::int64_t(1) << 32,
                                         std::int64_t(1) << 33,
                                         std::int64_t(1) << 40,
                                         std::int64_t(1) << 61,
                                         std::int64_t(1) << 62,
                                         std::int64_t(0x7000000000000000),
                                         std::numeric_limits<std::int64_t>::max(),
                                         std::numeric_limits<std::int64_t>::max() - 4094,
                                         std::numeric_limits<std::int64_t>::min(),
                                         -1};
    switch (fdp.ConsumeIntegralInRange(0, 3)) {
        case 0: return fdp.ConsumeIntegralInRange<std::int64_t>(0, 70);
        case 1: return fdp.PickValueInArray(edges);
        case 2:  // near an edge, wrapping as two's complement does
            return std::int64_t(std::uint64_t(fdp.PickValueInArray(edges)) + std::uint64_t(fdp.ConsumeIntegralInRange<std::int64_t>(-8, 8)));
        default: return fdp.ConsumeIntegral<std::int64_t>();
    }
}

inline std::vector<std::int64_t> interesting_dims(FuzzedDataProvider& fdp, std::size_t rank) {
    std::vector<std::int64_t> v(rank);
    for (auto& d : v) d = interesting_int(fdp);
    return v;
}

// Up to max_bytes of data: zeros, a ramp, or the fuzzer's own bytes.
inline std::string some_bytes(FuzzedDataProvider& fdp, std::size_t n) {
    switch (fdp.ConsumeIntegralInRange(0, 2)) {
        case 0: return std::string(n, '\0');
        case 1: {
            std::string s(n, '\0');
            for (std::size_t i = 0; i < n; ++i) s[i] = char(i * 7);
            return s;
        }
        default: return fdp.ConsumeBytesAsString(n);
    }
}

}  // namespace tfm_fuzz
