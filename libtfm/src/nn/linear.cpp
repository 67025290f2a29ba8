#include "tfm/nn/linear.hpp"

#include <algorithm>

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"

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
    if (layer.packed) {
        layer.packed->multiply(y, x, layer.bias.size() ? layer.bias.data() : nullptr);
        return;
    }
    float beta = 0.0f;
    if (layer.bias.size() != 0) {  // start from the bias, then accumulate x W^T onto it
        parallel_blocks(y.rows, 64, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) std::copy(layer.bias.begin(), layer.bias.end(), y.data + i * y.ld);
        });
        beta = 1.0f;
    }
    gemm(y, x, Op::N, mat(layer.weight.data(), layer.out(), layer.in()), Op::T, 1.0f, beta);
}

namespace {

constexpr std::size_t kSumColumns = 64;

// sum[j] += sum over rows of m(i, j), m at most kSumColumns wide; rows added in order.
void add_column_sums(float* sum, ConstMat m) {
    float acc[kSumColumns] = {};
    for (std::size_t i = 0; i < m.rows; ++i) {
        const float* r = m.data + i * m.ld;
        for (std::size_t j = 0; j < m.cols; ++j) acc[j] += r[j];
    }
    for (std::size_t j = 0; j < m.cols; ++j) sum[j] += acc[j];
}

}  // namespace

void linear_backward(Mat dx, Linear& grad, ConstMat dy, ConstMat x, const Linear& layer, bool accumulate_dx) {
    if (layer.packed) throw Error("linear backward: the layer is packed for inference; training needs its fp32 weights");
    const std::size_t in = layer.in(), out = layer.out();
    if (dy.cols != out || x.cols != in || dy.rows != x.rows || grad.weight.shape() != layer.weight.shape())
        throw Error("linear backward: shapes do not fit weight [" + std::to_string(out) + "," + std::to_string(in) + "]");
    gemm(mat(grad.weight.data(), out, in), dy, Op::T, x, Op::N, 1.0f, 1.0f);
    if (layer.bias.size() != 0) {  // column sums of dy: blocks of columns in parallel, rows in order
        float* db = grad.bias.data();
        parallel_blocks(out, kSumColumns, [&](std::size_t j0, std::size_t j1) {
            add_column_sums(db + j0, dy.cols_range(j0, j1 - j0));
        });
    }
    if (dx.data) gemm(dx, dy, Op::N, mat(layer.weight.data(), out, in), Op::N, 1.0f, accumulate_dx ? 1.0f : 0.0f);
}

void pack_linear(Linear& l, ComputeType t) {
    if (l.packed) throw Error("linear: packed twice");
    l.packed = std::make_shared<const PackedMatrix>(mat(l.weight.data(), l.out(), l.in()), t);
    l.weight = xt::xtensor<float, 2>();
}

Linear zeros_like(const Linear& l) {
    Linear g;
    g.weight = xt::zeros<float>(l.weight.shape());
    g.bias = xt::zeros<float>(l.bias.shape());
    return g;
}

}  // namespace tfm
