// Scaled dot-product attention, all heads at once:
//   out[:, h*Kv:(h+1)*Kv] = softmax(mask(q_h k_h^T * s)) v_h,   s = 1/sqrt(K) (or 1)
// where q_h = q[:, h*K:(h+1)*K] is a strided view (the [T,D] -> [H,T,K] reshape costs no
// copy) and every product is an sgemm. Many sequences (a batch, a beam) go in one call, so
// the thread pool works on (sequence, head, block of queries) tasks. Projections are the
// caller's (see multihead.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "tfm/base/gemm.hpp"
#include "tfm/nn/attention_types.hpp"
#include "tfm/nn/softmax.hpp"

namespace tfm {

// Fills the scores of item `item`, head `head`, for queries first .. first+scores.rows-1
// against keys 0 .. scores.cols-1 (keys no query of the block can see are left out).
using ScoreFn = std::function<void(std::size_t item, std::size_t head, std::size_t first, Mat scores)>;

// The part every attention shares: scores -> masked softmax -> times v_h, in parallel.
void attend(const std::vector<AttentionItem>& items, std::size_t heads, bool causal, const ScoreFn& scores);

void dot_product_attention(const std::vector<AttentionItem>& items, const AttentionOptions& opt);

// One sequence: q [Tq,D], k [Tk,D], v [Tk,Dv] -> out [Tq,Dv]; weights [H,Tq,Tk] or nullptr.
void dot_product_attention(Mat out, float* weights, ConstMat q, ConstMat k, ConstMat v,
                           const PrefixMask& mask, const AttentionOptions& opt);

// Backward of dot_product_attention for one sequence, from the probabilities P [H,Tq,Tk] its
// forward produced: dq [Tq,D], dk [Tk,D], dv [Tk,Dv] are overwritten from dout [Tq,Dv]:
//   dV_h = P_h^T dO_h,  dP_h = dO_h V_h^T,  dS_h = P_h o (dP_h - rowsum(P_h o dP_h)),
//   dQ_h = s dS_h K_h,  dK_h = s dS_h^T Q_h;
// under the forward's dropout mask M, dV_h = (P_h o M)^T dO_h and dP_h = (dO_h V_h^T) o M.
struct AttentionGradItem {
    ConstMat q, k, v, dout;
    const float* weights;  // [H,Tq,Tk]
    Mat dq, dk, dv;
    DropoutMask dropout;   // the forward's, and where its indices start
    std::size_t dropout_first = 0;
};
void dot_product_attention_backward(const std::vector<AttentionGradItem>& items, const AttentionOptions& opt);

// Floating-point operations of dot_product_attention (2 per multiply-add).
double attention_flops(std::size_t tq, std::size_t tk, std::size_t d, std::size_t dv);

}  // namespace tfm
