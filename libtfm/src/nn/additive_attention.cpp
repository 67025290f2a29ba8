#include "tfm/nn/additive_attention.hpp"

#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"

namespace tfm {

AdditiveParams random_additive(std::size_t k, std::size_t a, Rng& rng) {
    AdditiveParams p;
    p.wq = xt::xtensor<float, 2>::from_shape({a, k});
    p.wk = xt::xtensor<float, 2>::from_shape({a, k});
    p.w = xt::xtensor<float, 1>::from_shape({a});
    xavier_uniform(p.wq.data(), a, k, rng);
    xavier_uniform(p.wk.data(), a, k, rng);
    xavier_uniform(p.w.data(), 1, a, rng);
    return p;
}

void additive_attention(const std::vector<AttentionItem>& items, std::size_t heads, bool causal,
                        const AdditiveParams& p) {
    const std::size_t a = p.w.size();
    // W_q q and W_k k of every item and head first: [H,Tq,A] and [H,Tk,A] per item.
    std::vector<std::vector<float>> pq(items.size()), pk(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        const AttentionItem& it = items[i];
        const std::size_t dk = head_size(it.q.cols, heads);
        if (it.k.cols != it.q.cols || p.wq.shape(1) != dk || p.wk.shape(1) != dk || p.wq.shape(0) != a ||
            p.wk.shape(0) != a)
            throw Error("additive attention: parameters W_q [" + std::to_string(p.wq.shape(0)) + "," +
                        std::to_string(p.wq.shape(1)) + "] do not fit head size " + std::to_string(dk));
        const std::size_t tq = it.q.rows, tk = it.k.rows;
        pq[i].resize(heads * tq * a);
        pk[i].resize(heads * tk * a);
        for (std::size_t h = 0; h < heads; ++h) {
            gemm(mat(pq[i].data() + h * tq * a, tq, a), it.q.cols_range(h * dk, dk), Op::N, mat(p.wq.data(), a, dk), Op::T);
            gemm(mat(pk[i].data() + h * tk * a, tk, a), it.k.cols_range(h * dk, dk), Op::N, mat(p.wk.data(), a, dk), Op::T);
        }
    }
    attend(items, heads, causal, [&](std::size_t i, std::size_t h, std::size_t first, Mat scores) {
        const std::size_t tq = items[i].q.rows, tk = items[i].k.rows;
        std::vector<float> sum(a);
        for (std::size_t r = 0; r < scores.rows; ++r) {
            for (std::size_t j = 0; j < scores.cols; ++j) {
                const float* x = &pq[i][(h * tq + first + r) * a];
                const float* y = &pk[i][(h * tk + j) * a];
                for (std::size_t c = 0; c < a; ++c) sum[c] = x[c] + y[c];
                tanh_inplace(sum.data(), a);
                float s = 0.0f;
                for (std::size_t c = 0; c < a; ++c) s += p.w[c] * sum[c];
                scores.data[r * scores.ld + j] = s;
            }
        }
    });
}

}  // namespace tfm
