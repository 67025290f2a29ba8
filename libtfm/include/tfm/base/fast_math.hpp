// Vectorisable elementwise exp and tanh for the hot loops (softmax, additive attention).
// Accurate to a few ulp over the float range; written as plain loops that the compiler turns
// into AVX2/FMA code at -O3 for x86-64-v3.
#pragma once

#include <cstddef>

namespace tfm {

// Reductions sum in this many independent partial sums ("lanes"), so that the compiler
// vectorises them without -ffast-math and the order, so the result, depends only on n, never
// on threads or alignment (softmax, LayerNorm, the loss).
constexpr std::size_t kSumLanes = 16;

// y[i] = exp(x[i] - shift); returns the sum of y. x and y may alias.
float exp_shifted(float* y, const float* x, std::size_t n, float shift);

// The largest element (-inf for n == 0; NaN elements are skipped).
float max_of(const float* x, std::size_t n);

// y[i] = tanh(x[i]); x and y may alias.
void tanh_inplace(float* x, std::size_t n);

// x = x * sigmoid(x) (swish, SiLU).
void swish_inplace(float* x, std::size_t n);

// x = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), the exact GELU (erf to about 1e-7).
void gelu_inplace(float* x, std::size_t n);

}  // namespace tfm
