#include "tfm/linear.hpp"

#include <algorithm>

#include "tfm/error.hpp"

namespace tfm {

Linear random_linear(std::size_t in, std::size_t out, Rng& rng, bool with_bias) {
    Linear l;
    l.weight = xt::xtensor<float, 2>::from_shape({out, in});
    xavier_uniform(l.weight.data(), out, in, rng);
    if (with_bias) l.bias = xt::zeros<float>({out});
    return l;
}

void linear_forward(Mat y, ConstMat x, const Linear& layer) {
    if (x.cols != layer.in() || y.cols != layer.out() || y.rows != x.rows)
        throw Error("linear: input [" + std::to_string(x.rows) + "," + std::to_string(x.cols) +
                    "] does not fit weight [" + std::to_string(layer.out()) + "," +
                    std::to_string(layer.in()) + "]");
    float beta = 0.0f;
    if (layer.bias.size() != 0) {  // start from the bias, then accumulate x W^T onto it
        for (std::size_t i = 0; i < y.rows; ++i)
            std::copy(layer.bias.begin(), layer.bias.end(), y.data + i * y.ld);
        beta = 1.0f;
    }
    gemm(y, x, Op::N, mat(layer.weight.data(), layer.out(), layer.in()), Op::T, 1.0f, beta);
}

}  // namespace tfm
