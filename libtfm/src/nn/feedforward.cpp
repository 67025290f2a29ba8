#include "tfm/nn/feedforward.hpp"

#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

Activation parse_activation(const std::string& name) {
    if (name == "relu") return Activation::Relu;
    if (name == "gelu") return Activation::Gelu;
    if (name == "swish" || name == "silu") return Activation::Swish;
    throw Error("unsupported activation_function '" + name + "' (relu, gelu, swish/silu)");
}

const char* activation_name(Activation a) {
    switch (a) {
        case Activation::Relu: return "relu";
        case Activation::Gelu: return "gelu";
        case Activation::Swish: return "swish";
    }
    return "?";
}

void activation_forward(float* x, std::size_t n, Activation a) {
    constexpr std::size_t kChunk = 1 << 14;
    parallel_for((n + kChunk - 1) / kChunk, [&](std::size_t c) {
        float* p = x + c * kChunk;
        const std::size_t m = std::min(kChunk, n - c * kChunk);
        switch (a) {
            case Activation::Relu:
                for (std::size_t i = 0; i < m; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
                break;
            case Activation::Swish:
                swish_inplace(p, m);
                break;
            case Activation::Gelu:
                gelu_inplace(p, m);
                break;
        }
    });
}

FeedForward random_feedforward(std::size_t d, std::size_t f, Rng& rng) {
    FeedForward ff;
    ff.fc1 = random_linear(d, f, rng);
    ff.fc2 = random_linear(f, d, rng);
    return ff;
}

void feedforward_forward(Mat y, ConstMat x, const FeedForward& ff, Activation a, std::vector<float>& hidden,
                         std::vector<float>* kept, const DropoutMask& dropout) {
    const std::size_t f = ff.fc1.out(), n = x.rows * f;
    // ReLU's derivative is the sign of its output: the activated hidden layer is all the
    // backward pass needs, so it is computed in place where it is kept (unless dropout
    // changes it after).
    const bool relu_kept = kept && a == Activation::Relu && !dropout.active();
    std::vector<float>& h = relu_kept ? *kept : hidden;
    h.resize(n);
    linear_forward(mat(h.data(), x.rows, f), x, ff.fc1);
    if (kept && !relu_kept) kept->assign(h.begin(), h.end());
    activation_forward(h.data(), n, a);
    if (dropout.active()) dropout_rows(h.data(), h.data(), x.rows, f, dropout);
    linear_forward(y, mat(h.data(), x.rows, f), ff.fc2);
}

namespace {

// activation_backward over n values; the switch is outside the loops so that each vectorises.
void activation_backward_block(float* dx, const float* dy, const float* x, std::size_t n, Activation a) {
    switch (a) {
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
            break;
        case Activation::Swish:
            for (std::size_t i = 0; i < n; ++i) {
                const float v = x[i], s = 1.0f / (1.0f + std::exp(-v));
                dx[i] = dy[i] * (s * (1.0f + v * (1.0f - s)));
            }
            break;
        case Activation::Gelu:
            for (std::size_t i = 0; i < n; ++i) {
                const float v = x[i], phi = 0.3989422804f * std::exp(-0.5f * v * v);
                dx[i] = dy[i] * (0.5f * (1.0f + std::erf(v * 0.70710678118654752f)) + v * phi);
            }
            break;
    }
}

}  // namespace

void activation_backward(float* dx, const float* dy, const float* x, std::size_t n, Activation a) {
    constexpr std::size_t kChunk = 1 << 14;
    parallel_blocks(n, kChunk, [&](std::size_t first, std::size_t last) {
        activation_backward_block(dx + first, dy + first, x + first, last - first, a);
    });
}

void feedforward_backward(Mat dx, FeedForward& grad, ConstMat dy, ConstMat x, const std::vector<float>& kept,
                          const FeedForward& ff, Activation a, std::vector<float>& hidden, const DropoutMask& dropout) {
    const std::size_t n = x.rows, f = ff.fc1.out();
    if (kept.size() != n * f) throw Error("feed-forward backward: the kept activations do not fit");
    // fc2's input: the kept ReLU output, or the activation of the kept pre-activation again
    // (then the mask again, under dropout).
    const float* h = kept.data();
    const bool relu_kept = a == Activation::Relu && !dropout.active();
    if (!relu_kept) {
        hidden.assign(kept.begin(), kept.end());
        activation_forward(hidden.data(), n * f, a);
        if (dropout.active()) dropout_rows(hidden.data(), hidden.data(), n, f, dropout);
        h = hidden.data();
    }
    thread_local std::vector<float> dh;  // scratch kept between calls
    dh.resize(n * f);
    linear_backward(mat(dh.data(), n, f), grad.fc2, dy, mat(h, n, f), ff.fc2);
    if (dropout.active()) dropout_rows(dh.data(), dh.data(), n, f, dropout);
    // ReLU: the sign of its output is the sign of its input, so either kept form serves.
    activation_backward(dh.data(), dh.data(), kept.data(), n * f, a);
    linear_backward(dx, grad.fc1, mat(dh.data(), n, f), x, ff.fc1);
}

}  // namespace tfm
