// The position-wise feed-forward network: y = act(x W1^T + b1) W2^T + b2, with the
// activation the config names (ReLU in the paper, swish in OPUS-MT, gelu in others).
#pragma once

#include <string>
#include <vector>

#include "tfm/nn/dropout.hpp"
#include "tfm/nn/linear.hpp"

namespace tfm {

enum class Activation { Relu, Gelu, Swish };

Activation parse_activation(const std::string& name);  // relu | gelu | swish | silu
const char* activation_name(Activation a);

// In place over n values.
void activation_forward(float* x, std::size_t n, Activation a);
// dx[i] = dy[i] * act'(x[i]) for the pre-activation x (for ReLU the output does as well);
// dx may alias dy.
void activation_backward(float* dx, const float* dy, const float* x, std::size_t n, Activation a);

struct FeedForward {
    Linear fc1;  // [F,D]
    Linear fc2;  // [D,F]
};

FeedForward random_feedforward(std::size_t d, std::size_t f, Rng& rng);

// y [N,D] = FFN(x [N,D]); hidden is scratch, resized to [N,F]. With pre_activation, the
// hidden layer before the activation [N,F] is kept there (for the backward pass). dropout
// (training's activation dropout) multiplies the activated hidden layer by its mask.
void feedforward_forward(Mat y, ConstMat x, const FeedForward& ff, Activation a, std::vector<float>& hidden,
                         std::vector<float>* pre_activation = nullptr, const DropoutMask& dropout = {});

// Backward: grad accumulates fc1/fc2 gradients; dx [N,D] from dy [N,D], given the input x,
// the kept pre-activation [N,F] and the forward's dropout mask. hidden is scratch.
void feedforward_backward(Mat dx, FeedForward& grad, ConstMat dy, ConstMat x, const std::vector<float>& pre_activation,
                          const FeedForward& ff, Activation a, std::vector<float>& hidden,
                          const DropoutMask& dropout = {});

}  // namespace tfm
