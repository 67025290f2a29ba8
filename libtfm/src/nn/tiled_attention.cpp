#include "tfm/nn/tiled_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/nn/softmax.hpp"

namespace tfm {

namespace {
constexpr std::size_t kTileRows = 64, kTileKeys = 256;
}

std::size_t blocked_scratch_bytes(std::size_t tk) { return kQueryBlock * tk * sizeof(float); }

std::size_t tiled_scratch_bytes(std::size_t dv, std::size_t heads) {
    return (kTileRows * kTileKeys + kTileRows * (dv / std::max<std::size_t>(heads, 1)) + 2 * kTileRows) *
           sizeof(float);
}

void tiled_attention(const std::vector<AttentionItem>& items, const AttentionOptions& opt) {
    const std::size_t heads = opt.heads;
    std::vector<std::size_t> first_task(items.size() + 1, 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const AttentionItem& it = items[i];
        head_size(it.q.cols, heads);
        head_size(it.v.cols, heads);
        if (it.weights) throw Error("tiled attention: no attention weights (they are [H,Tq,Tk] by nature)");
        if (it.dropout.active()) throw Error("tiled attention: no dropout on attention probabilities");
        if (it.k.cols != it.q.cols || it.k.rows != it.v.rows || it.out.rows != it.q.rows || it.out.cols != it.v.cols)
            throw Error("tiled attention: shapes of queries, keys, values and output do not fit");
        first_task[i + 1] = first_task[i] + heads * ((it.q.rows + kTileRows - 1) / kTileRows);
    }
    parallel_for(first_task.back(), [&](std::size_t task) {
        const std::size_t i = std::size_t(std::upper_bound(first_task.begin(), first_task.end(), task) -
                                          first_task.begin()) - 1;
        const AttentionItem& it = items[i];
        const std::size_t tq = it.q.rows, tk = it.k.rows, dk = it.q.cols / heads, dv = it.v.cols / heads;
        const std::size_t blocks = (tq + kTileRows - 1) / kTileRows;
        const std::size_t h = (task - first_task[i]) / blocks, i0 = ((task - first_task[i]) % blocks) * kTileRows;
        const std::size_t rows = std::min(kTileRows, tq - i0);
        const PrefixMask mask{it.key_len, opt.causal};
        const float scale = opt.scaled ? 1.0f / std::sqrt(float(dk)) : 1.0f;
        thread_local std::vector<float> s_buf, acc_buf, m, l;
        s_buf.resize(kTileRows * kTileKeys);
        acc_buf.assign(rows * dv, 0.0f);
        m.assign(rows, -std::numeric_limits<float>::infinity());
        l.assign(rows, 0.0f);
        Mat acc = mat(acc_buf.data(), rows, dv);
        ConstMat q = it.q.rows_range(i0, rows).cols_range(h * dk, dk);
        const std::size_t kmax = mask.visible(i0 + rows - 1, tq, tk);  // keys some row of the block sees
        for (std::size_t j0 = 0; j0 < kmax; j0 += kTileKeys) {
            const std::size_t kb = std::min(kTileKeys, kmax - j0);
            Mat s = mat(s_buf.data(), rows, kb);
            gemm(s, q, Op::N, it.k.rows_range(j0, kb).cols_range(h * dk, dk), Op::T, scale);
            for (std::size_t r = 0; r < rows; ++r) {
                float* row = s.data + r * kb;
                const std::size_t vis = mask.visible(i0 + r, tq, tk);
                const std::size_t n = vis > j0 ? std::min(kb, vis - j0) : 0;  // keys of this block the row sees
                std::fill(row + n, row + kb, 0.0f);
                if (n == 0) continue;
                const float m_new = std::max(m[r], max_of(row, n));
                const float rescale = std::exp(m[r] - m_new);  // 0 on the first visible block
                const float sum = exp_shifted(row, row, n, m_new);
                l[r] = l[r] * rescale + sum;
                m[r] = m_new;
                if (rescale != 1.0f)
                    for (std::size_t c = 0; c < dv; ++c) acc.data[r * dv + c] *= rescale;
            }
            gemm(acc, s, Op::N, it.v.rows_range(j0, kb).cols_range(h * dv, dv), Op::N, 1.0f, 1.0f);
        }
        Mat out = it.out.rows_range(i0, rows).cols_range(h * dv, dv);
        for (std::size_t r = 0; r < rows; ++r) {  // fully masked rows stay zero, as in attention.hpp
            const float inv = l[r] > 0 ? 1.0f / l[r] : 0.0f;
            for (std::size_t c = 0; c < dv; ++c) out.data[r * out.ld + c] = acc.data[r * dv + c] * inv;
        }
    });
}

}  // namespace tfm
