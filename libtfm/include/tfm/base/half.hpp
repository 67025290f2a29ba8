// IEEE binary16 ("half", F16) to and from float: what F16 weight files and the compact arrays
// of tfm-view's pages hold.
#pragma once

#include <cstdint>

namespace tfm {

// float -> half, rounded to nearest even; overflow gives inf, NaN stays NaN.
std::uint16_t float_to_half(float f);
// half -> float, exactly (subnormals included).
float half_to_float(std::uint16_t h);

}  // namespace tfm
