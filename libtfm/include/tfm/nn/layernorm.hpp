// Layer normalisation over the last dimension: y = (x - mean) / sqrt(var + eps) * gamma + beta.
#pragma once

#include <xtensor/xtensor.hpp>

#include "tfm/base/gemm.hpp"

namespace tfm {

struct LayerNorm {
    xt::xtensor<float, 1> gamma;  // [D]
    xt::xtensor<float, 1> beta;   // [D]
    float eps = 1e-5f;
};

LayerNorm identity_layernorm(std::size_t d, float eps);  // gamma 1, beta 0

// y [N,D] = LN(x [N,D]); y may be x.
void layernorm_forward(Mat y, ConstMat x, const LayerNorm& ln);

// Backward of layernorm_forward from its input x: grad accumulates dgamma, dbeta;
// dx [N,D] = d LN / dx applied to dy (dx may alias dy).
void layernorm_backward(Mat dx, LayerNorm& grad, ConstMat dy, ConstMat x, const LayerNorm& ln);

}  // namespace tfm
