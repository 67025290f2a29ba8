#include "tfm/feedforward.hpp"

#include <cmath>

#include "tfm/fast_math.hpp"
#include "tfm/parallel.hpp"

namespace tfm {

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

void feedforward_forward(Mat y, ConstMat x, const FeedForward& ff, Activation a, std::vector<float>& hidden) {
    const std::size_t f = ff.fc1.out();
    hidden.resize(x.rows * f);
    Mat h = mat(hidden.data(), x.rows, f);
    linear_forward(h, x, ff.fc1);
    activation_forward(h.data, x.rows * f, a);
    linear_forward(y, h, ff.fc2);
}

}  // namespace tfm
