#include "tfm/attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tfm/error.hpp"
#include "tfm/parallel.hpp"

namespace tfm {

std::size_t head_size(std::size_t d, std::size_t heads) {
    if (heads == 0) throw Error("the number of heads must be at least 1");
    if (d % heads != 0)
        throw Error("D=" + std::to_string(d) + " is not divisible by H=" + std::to_string(heads) +
                    " heads (D must equal H x head size)");
    return d / heads;
}

void attend(Mat out, float* weights, ConstMat v, std::size_t heads, const PrefixMask& mask,
            const ScoreFn& scores) {
    const std::size_t tq = out.rows, tk = v.rows;
    const std::size_t kv = head_size(v.cols, heads);
    if (out.cols != v.cols)
        throw Error("attention: output width " + std::to_string(out.cols) + " != value width " +
                    std::to_string(v.cols));
    if (tq == 0) return;
    // Tasks are (head, block of query rows): the block's scores stay in cache, and softmax
    // runs in parallel with everything else.
    constexpr std::size_t kBlock = 128;
    const std::size_t blocks = (tq + kBlock - 1) / kBlock;
    parallel_for(heads * blocks, [&](std::size_t task) {
        const std::size_t h = task / blocks, i0 = (task % blocks) * kBlock;
        const std::size_t rows = std::min(kBlock, tq - i0);
        // The keys that some row of the block sees (visibility grows with the row).
        const std::size_t kmax = mask.visible(i0 + rows - 1, tq, tk);
        Mat s;
        if (weights) {
            s = {weights + (h * tq + i0) * tk, rows, kmax, tk};
            for (std::size_t i = 0; i < rows; ++i) std::fill(s.data + i * tk + kmax, s.data + (i + 1) * tk, 0.0f);
        } else {
            thread_local std::vector<float> scratch;
            scratch.resize(std::max<std::size_t>(1, rows * kmax));
            s = {scratch.data(), rows, kmax, kmax};
        }
        if (kmax > 0) scores(h, i0, s);
        softmax_rows(s, mask, i0, tq, tk);
        gemm(out.rows_range(i0, rows).cols_range(h * kv, kv), s, Op::N,
             v.rows_range(0, kmax).cols_range(h * kv, kv), Op::N);
    });
}

void dot_product_attention(Mat out, float* weights, ConstMat q, ConstMat k, ConstMat v,
                           const PrefixMask& mask, const AttentionOptions& opt) {
    const std::size_t dk = head_size(q.cols, opt.heads);
    if (k.cols != q.cols)
        throw Error("attention: query width " + std::to_string(q.cols) + " != key width " +
                    std::to_string(k.cols));
    if (k.rows != v.rows)
        throw Error("attention: " + std::to_string(k.rows) + " keys but " + std::to_string(v.rows) +
                    " values");
    if (out.rows != q.rows) throw Error("attention: output rows != query rows");
    const float s = opt.scaled ? 1.0f / std::sqrt(float(dk)) : 1.0f;
    attend(out, weights, v, opt.heads, mask, [&](std::size_t h, std::size_t first, Mat scores) {
        gemm(scores, q.rows_range(first, scores.rows).cols_range(h * dk, dk), Op::N,
             k.rows_range(0, scores.cols).cols_range(h * dk, dk), Op::T, s);
    });
}

double attention_flops(std::size_t tq, std::size_t tk, std::size_t d, std::size_t dv) {
    return 2.0 * double(tq) * double(tk) * double(d) + 2.0 * double(tq) * double(tk) * double(dv);
}

}  // namespace tfm
