#include "tfm/nn/dropout.hpp"

#include <algorithm>

#include "tfm/base/parallel.hpp"

namespace tfm {

namespace {

// Counter-based generator: the 32-bit murmur3 finaliser of (index * golden ratio + k0) ^ k1.
// Every step is a 32-bit multiply, xor or shift, so the loops below vectorise with AVX2 and
// need no state: element i's draw depends on the key and i only.
inline std::uint32_t draw(std::uint32_t i, std::uint32_t k0, std::uint32_t k1) {
    std::uint32_t x = (i * 0x9E3779B9u + k0) ^ k1;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

struct Params {
    std::uint32_t k0, k1, threshold;
    float scale;
};

Params params(const DropoutMask& mask) {
    const double p = std::clamp(double(mask.p), 0.0, 1.0);
    // Dropped when draw < threshold: probability threshold / 2^32 = p (to 2^-32).
    const double t = std::min(p * 4294967296.0, 4294967295.0);
    return {std::uint32_t(mask.key), std::uint32_t(mask.key >> 32), std::uint32_t(t),
            p < 1.0 ? float(1.0 / (1.0 - p)) : 0.0f};
}

}  // namespace

std::uint64_t dropout_key(std::uint64_t seed, std::uint64_t call) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (call + 1) * 0xD1B54A32D192ED03ULL;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

DropoutStream::DropoutStream(std::uint64_t seed, float p, float attention, float activation) {
    // The first kind keeps the seed itself (the keys of runs before the other kinds existed);
    // the others take seeds drawn from it far past any call number.
    const float rates[3] = {p, attention, activation};
    for (std::uint64_t k = 0; k < 3; ++k)
        kinds_[k] = {k == 0 ? seed : dropout_key(seed, ~std::uint64_t(0) - k), 0, rates[k]};
}

void dropout_apply(float* y, const float* x, std::size_t n, std::size_t first, const DropoutMask& mask) {
    if (!mask.active()) {
        if (y != x) std::copy(x, x + n, y);
        return;
    }
    const Params q = params(mask);
    const std::uint32_t base = std::uint32_t(first);  // indices wrap at 2^32: masks repeat only past 4G elements
    for (std::size_t i = 0; i < n; ++i)
        y[i] = x[i] * (draw(base + std::uint32_t(i), q.k0, q.k1) < q.threshold ? 0.0f : q.scale);  // NaN stays NaN
}

void dropout_add(float* sum, const float* residual, const float* x, std::size_t n, std::size_t first,
                 const DropoutMask& mask) {
    if (!mask.active()) {
        for (std::size_t i = 0; i < n; ++i) sum[i] = residual[i] + x[i];
        return;
    }
    const Params q = params(mask);
    const std::uint32_t base = std::uint32_t(first);
    for (std::size_t i = 0; i < n; ++i)
        sum[i] = residual[i] + x[i] * (draw(base + std::uint32_t(i), q.k0, q.k1) < q.threshold ? 0.0f : q.scale);
}

void dropout_rows(float* y, const float* x, std::size_t rows, std::size_t d, const DropoutMask& mask) {
    constexpr std::size_t kRowBlock = 32;
    parallel_blocks(rows, kRowBlock, [&](std::size_t r0, std::size_t r1) {
        dropout_apply(y + r0 * d, x + r0 * d, (r1 - r0) * d, r0 * d, mask);
    });
}

void dropout_mask_values(float* m, std::size_t n, std::size_t first, const DropoutMask& mask) {
    std::fill(m, m + n, 1.0f);
    dropout_apply(m, m, n, first, mask);
}

}  // namespace tfm
