// The layers the paper compares self-attention with (Table 1), each mapping [n,d] -> [n,d]:
// a recurrent layer (n sequential steps), a convolution of kernel width k, and self-attention
// restricted to a neighbourhood of r positions. For measuring, not for models.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/base/gemm.hpp"

namespace tfm {

// h_t = tanh(W x_t + U h_{t-1} + b), h_{-1} = 0: one sgemm for all W x_t, then n sequential
// sgemv steps. out [n,d] holds h; x [n,d], w and u [d,d], b [d].
void recurrent_forward(Mat out, ConstMat x, ConstMat w, ConstMat u, const float* b);

// out_i = b + sum_{j<k} W_j x_{i+j-(k-1)/2} (zero outside the sequence), as one sgemm over
// im2col rows: w [d, k*d] (block j of columns is W_j), b [d]; cols is the scratch.
void convolution_forward(Mat out, ConstMat x, ConstMat w, const float* b, std::size_t k, std::vector<float>& cols);

// Multi-head scaled dot-product self-attention (Q = K = V = x) where position i sees keys
// j with |i - j| <= r/2 only; heads divide d.
void restricted_attention(Mat out, ConstMat x, std::size_t heads, std::size_t r);

// FLOPs (2 per multiply-add) of each on [n,d].
double recurrent_flops(std::size_t n, std::size_t d);
double convolution_flops(std::size_t n, std::size_t d, std::size_t k);
double restricted_attention_flops(std::size_t n, std::size_t d, std::size_t r);

}  // namespace tfm
