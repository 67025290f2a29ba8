// bfloat16, the upper half of a float32: the one rounding rule (to nearest, ties to even; NaN
// stays NaN) that the packed bf16 products, bf16 weight files and bf16 mixed-precision
// training all use.
#pragma once

#include <cstdint>
#include <cstring>

namespace tfm {

// The bfloat16 nearest to f, as its 16 bits.
inline std::uint16_t bfloat16_bits(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((x >> 16) | 0x40u);  // NaN, kept quiet
    return std::uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// The float32 value of bfloat16 bits (exact).
inline float bfloat16_value(std::uint16_t h) {
    const std::uint32_t x = std::uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

// f rounded to the nearest bfloat16, as a float32.
inline float round_to_bfloat16(float f) { return bfloat16_value(bfloat16_bits(f)); }

}  // namespace tfm
