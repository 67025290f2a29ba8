// Symmetric int8 with one scale per row: q = round(x / s), s = max|x| / 127, x ~ q * s. The one
// rule both int8 products (packed_matrix) and int8 weight files (safetensors I8) use, so that a
// file stored as int8 and an fp32 one quantised at load give the same int8 weights.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

// Quantises the n values at x into q; returns the row's scale s (0 for a row of zeros), or NaN
// when the row holds NaN or Inf (q is then all zeros).
float quantize_row_int8(std::int8_t* q, const float* x, std::size_t n);

// x[i] = q[i] * scale.
void dequantize_row_int8(float* x, const std::int8_t* q, std::size_t n, float scale);

}  // namespace tfm
