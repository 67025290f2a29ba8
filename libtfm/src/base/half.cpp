#include "tfm/base/half.hpp"

#include <cstring>

namespace tfm {

std::uint16_t float_to_half(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000);
    const std::uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return std::uint16_t(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0));  // inf, NaN
    if (abs >= 0x477ff000u) return std::uint16_t(sign | 0x7c00);  // rounds past 65504: inf
    if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (abs < 0x33000000u) return sign;  // under half the smallest subnormal
        const std::uint32_t mant = (abs & 0x7fffff) | 0x800000;
        const int shift = 126 - int(abs >> 23);  // 14..24
        std::uint32_t h = mant >> shift;
        const std::uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1))) ++h;
        return std::uint16_t(sign | h);
    }
    std::uint32_t h = ((abs >> 13) - (112u << 10));  // rebias exponent 127 -> 15
    const std::uint32_t rest = abs & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
    return std::uint16_t(sign | h);
}

float half_to_float(std::uint16_t h) {
    std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
    std::uint32_t exp = (h >> 10) & 0x1f;
    std::uint32_t mant = h & 0x3ff;
    std::uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal half: renormalise
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while (!(mant & 0x400));
            bits = sign | (std::uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

}  // namespace tfm
