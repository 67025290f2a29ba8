#include "tfm/nn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/nn/tiled_attention.hpp"

namespace tfm {

std::size_t head_size(std::size_t d, std::size_t heads) {
    if (heads == 0) throw Error("the number of heads must be at least 1");
    if (d % heads != 0)
        throw Error("D=" + std::to_string(d) + " is not divisible by H=" + std::to_string(heads) +
                    " heads (D must equal H x head size)");
    return d / heads;
}

void mean_of_heads(std::vector<float>& out, const float* w, std::size_t heads, std::size_t stride, std::size_t n) {
    out.assign(n, 0.0f);
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t j = 0; j < n; ++j) out[j] += w[h * stride + j];
    for (float& v : out) v /= float(heads);
}

namespace {

void check_item(const AttentionItem& it, std::size_t heads) {
    head_size(it.v.cols, heads);
    if (it.out.cols != it.v.cols || it.out.rows != it.q.rows)
        throw Error("attention: output [" + std::to_string(it.out.rows) + "," + std::to_string(it.out.cols) +
                    "] does not fit " + std::to_string(it.q.rows) + " queries and values of width " +
                    std::to_string(it.v.cols));
    if (it.k.rows != it.v.rows)
        throw Error("attention: " + std::to_string(it.k.rows) + " keys but " + std::to_string(it.v.rows) + " values");
}

}  // namespace

void attend(const std::vector<AttentionItem>& items, std::size_t heads, bool causal, const ScoreFn& scores) {
    // Tasks are (item, head, block of query rows): a block's scores stay in cache, and the
    // softmax runs in parallel like everything else.
    std::vector<std::size_t> first_task(items.size() + 1, 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
        check_item(items[i], heads);
        first_task[i + 1] = first_task[i] + heads * ((items[i].q.rows + kQueryBlock - 1) / kQueryBlock);
    }
    parallel_for(first_task.back(), [&](std::size_t task) {
        const std::size_t i = std::size_t(std::upper_bound(first_task.begin(), first_task.end(), task) -
                                          first_task.begin()) - 1;
        const AttentionItem& it = items[i];
        const std::size_t tq = it.q.rows, tk = it.k.rows, kv = it.v.cols / heads;
        const std::size_t blocks = (tq + kQueryBlock - 1) / kQueryBlock;
        const std::size_t h = (task - first_task[i]) / blocks, i0 = ((task - first_task[i]) % blocks) * kQueryBlock;
        const std::size_t rows = std::min(kQueryBlock, tq - i0);
        const PrefixMask mask{it.key_len, causal};
        // The keys some row of the block sees (visibility grows with the row).
        const std::size_t kmax = mask.visible(i0 + rows - 1, tq, tk);
        Mat s;
        if (it.weights) {
            s = {it.weights + (h * tq + i0) * tk, rows, kmax, tk};
            for (std::size_t r = 0; r < rows; ++r) std::fill(s.data + r * tk + kmax, s.data + (r + 1) * tk, 0.0f);
        } else {
            thread_local std::vector<float> scratch;
            scratch.resize(std::max<std::size_t>(1, rows * kmax));
            s = {scratch.data(), rows, kmax, kmax};
        }
        if (kmax > 0) scores(i, h, i0, s);
        softmax_rows(s, mask, i0, tq, tk);
        Mat out = it.out.rows_range(i0, rows).cols_range(h * kv, kv);
        ConstMat v = it.v.rows_range(0, kmax).cols_range(h * kv, kv);
        ConstMat p = s;
        if (it.dropout.active()) {  // the values see P o M; s keeps P
            thread_local std::vector<float> dropped;
            dropped.resize(std::max<std::size_t>(1, rows * kmax));
            for (std::size_t r = 0; r < rows; ++r)
                dropout_apply(dropped.data() + r * kmax, s.data + r * s.ld, kmax,
                              it.dropout_first + (h * tq + i0 + r) * tk, it.dropout);
            p = mat(dropped.data(), rows, kmax);
        }
        if (rows == 1)  // one query (a decoding step): out = V^T p
            gemv(out.data, v, Op::T, p.data);
        else
            gemm(out, p, Op::N, v, Op::N);
    });
}

void dot_product_attention(const std::vector<AttentionItem>& items, const AttentionOptions& opt) {
    bool weights = false, dropout = false;
    std::size_t longest = 0;
    for (const AttentionItem& it : items)
        weights |= it.weights != nullptr, dropout |= it.dropout.active(), longest = std::max(longest, it.k.rows);
    if (opt.algorithm == AttentionAlgorithm::Tiled && (weights || dropout))
        throw Error(weights ? "tiled attention gives no attention weights: they are [H,Tq,Tk] by nature"
                            : "tiled attention has no dropout on attention probabilities");
    if (!weights && !dropout && (opt.algorithm == AttentionAlgorithm::Tiled ||
                     (opt.algorithm == AttentionAlgorithm::Auto && blocked_scratch_bytes(longest) > kScoreScratchBudget))) {
        tiled_attention(items, opt);
        return;
    }
    std::vector<std::size_t> dk(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        dk[i] = head_size(items[i].q.cols, opt.heads);
        if (items[i].k.cols != items[i].q.cols)
            throw Error("attention: query width " + std::to_string(items[i].q.cols) + " != key width " +
                        std::to_string(items[i].k.cols));
    }
    attend(items, opt.heads, opt.causal, [&](std::size_t i, std::size_t h, std::size_t first, Mat scores) {
        const std::size_t k = dk[i];
        const float s = opt.scaled ? 1.0f / std::sqrt(float(k)) : 1.0f;
        ConstMat q = items[i].q.rows_range(first, scores.rows).cols_range(h * k, k);
        ConstMat keys = items[i].k.rows_range(0, scores.cols).cols_range(h * k, k);
        if (scores.rows == 1)  // one query: scores = K q
            gemv(scores.data, keys, Op::N, q.data, s);
        else
            gemm(scores, q, Op::N, keys, Op::T, s);
    });
}

void dot_product_attention(Mat out, float* weights, ConstMat q, ConstMat k, ConstMat v,
                           const PrefixMask& mask, const AttentionOptions& opt) {
    AttentionOptions o = opt;
    o.causal = mask.causal;
    dot_product_attention({AttentionItem{q, k, v, out, weights, mask.key_len, {}, 0}}, o);
}

void dot_product_attention_backward(const std::vector<AttentionGradItem>& items, const AttentionOptions& opt) {
    const std::size_t heads = opt.heads;
    parallel_for(items.size() * heads, [&](std::size_t task) {
        const AttentionGradItem& it = items[task / heads];
        const std::size_t h = task % heads;
        const std::size_t tq = it.q.rows, tk = it.k.rows;
        const std::size_t dk = head_size(it.q.cols, heads), dv = head_size(it.v.cols, heads);
        const float s = opt.scaled ? 1.0f / std::sqrt(float(dk)) : 1.0f;
        ConstMat p = mat(it.weights + h * tq * tk, tq, tk);
        ConstMat d_out = it.dout.cols_range(h * dv, dv);
        const std::size_t first = it.dropout_first + h * tq * tk;  // of this head's mask
        thread_local std::vector<float> ds_buf, dropped;
        ConstMat pv = p;  // what the values were weighted by: P, or P o M under dropout
        if (it.dropout.active()) {
            dropped.resize(tq * tk);
            dropout_apply(dropped.data(), p.data, tq * tk, first, it.dropout);
            pv = mat(dropped.data(), tq, tk);
        }
        gemm(it.dv.cols_range(h * dv, dv), pv, Op::T, d_out, Op::N);  // dV = (P o M)^T dO
        ds_buf.resize(std::max<std::size_t>(1, tq * tk));
        Mat ds = mat(ds_buf.data(), tq, tk);
        gemm(ds, d_out, Op::N, it.v.cols_range(h * dv, dv), Op::T);  // dP = (dO V^T) o M
        if (it.dropout.active()) dropout_apply(ds.data, ds.data, tq * tk, first, it.dropout);
        for (std::size_t i = 0; i < tq; ++i) {  // dS = P o (dP - rowsum(P o dP))
            const float* pr = p.data + i * tk;
            float* dr = ds.data + i * tk;
            double dot = 0;
            for (std::size_t j = 0; j < tk; ++j) dot += double(pr[j]) * dr[j];
            for (std::size_t j = 0; j < tk; ++j) dr[j] = pr[j] * (dr[j] - float(dot));
        }
        gemm(it.dq.cols_range(h * dk, dk), ds, Op::N, it.k.cols_range(h * dk, dk), Op::N, s);
        gemm(it.dk.cols_range(h * dk, dk), ds, Op::T, it.q.cols_range(h * dk, dk), Op::N, s);
    });
}

double attention_flops(std::size_t tq, std::size_t tk, std::size_t d, std::size_t dv) {
    return 2.0 * double(tq) * double(tk) * double(d) + 2.0 * double(tq) * double(tk) * double(dv);
}

}  // namespace tfm
