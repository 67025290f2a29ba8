// A linear layer y = x W^T + b with HF/PyTorch layout: weight [out,in], bias [out].
#pragma once

#include <cstddef>
#include <memory>

#include <xtensor/xtensor.hpp>

#include "tfm/base/gemm.hpp"
#include "tfm/base/packed_matrix.hpp"
#include "tfm/base/random.hpp"

namespace tfm {

struct Linear {
    xt::xtensor<float, 2> weight;  // [out,in]; empty once packed
    xt::xtensor<float, 1> bias;    // [out], or empty: no bias
    std::shared_ptr<const PackedMatrix> packed;  // [out,in] packed for inference, or null
    std::size_t in() const { return packed ? packed->cols() : weight.shape(1); }
    std::size_t out() const { return packed ? packed->rows() : weight.shape(0); }
};

// Packs the weight for inference in compute type t and frees its fp32 copy; the layer then
// runs forward only (linear_backward refuses it).
void pack_linear(Linear& l, ComputeType t);

// Xavier-uniform weight, zero bias (as torch.nn.MultiheadAttention initialises).
Linear random_linear(std::size_t in, std::size_t out, Rng& rng, bool with_bias = true);

// y[T,out] = x[T,in] W^T + b
void linear_forward(Mat y, ConstMat x, const Linear& layer);

// Backward of linear_forward. grad (shaped like layer) accumulates dW += dy^T x, db += sum dy;
// dx [T,in] = dy W, added to dx when accumulate_dx, or nothing when dx.data is null.
void linear_backward(Mat dx, Linear& grad, ConstMat dy, ConstMat x, const Linear& layer, bool accumulate_dx = false);

// A Linear of zeros shaped like l (a gradient accumulator).
Linear zeros_like(const Linear& l);

}  // namespace tfm
