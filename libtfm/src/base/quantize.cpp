#include "tfm/base/quantize.hpp"

#include <algorithm>
#include <cmath>

namespace tfm {

float quantize_row_int8(std::int8_t* q, const float* x, std::size_t n) {
    float amax = 0.0f;
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
        const float a = std::fabs(x[i]);
        finite &= a <= 3.4028235e38f;  // false for Inf and NaN
        amax = std::max(amax, a);
    }
    if (!finite) {
        std::fill(q, q + n, std::int8_t(0));
        return std::nanf("");
    }
    const float scale = amax / 127.0f, inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    for (std::size_t i = 0; i < n; ++i) q[i] = static_cast<std::int8_t>(std::nearbyint(x[i] * inv));
    return scale;
}

void dequantize_row_int8(float* x, const std::int8_t* q, std::size_t n, float scale) {
    for (std::size_t i = 0; i < n; ++i) x[i] = float(q[i]) * scale;
}

}  // namespace tfm
