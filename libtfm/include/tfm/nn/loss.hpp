// The training loss: label-smoothed cross-entropy over the output logits, its gradient, and
// the plain negative log-likelihood reported beside it.
#pragma once

#include <cstdint>
#include <vector>

#include "tfm/base/gemm.hpp"

namespace tfm {

struct LossStats {
    double smoothed = 0;     // sum over target tokens of the label-smoothed cross-entropy
    double nll = 0;          // sum of -log p(label)
    std::size_t tokens = 0;  // target tokens counted
};

// Label-smoothed cross-entropy of the logits z = logits [N,V] + bias [V] (bias may be null)
// against labels [N] (pad ignored): q = (1 - eps) one-hot + eps / V. With dlogits non-null
// (row stride V), d loss / d z = softmax(z) - q is written there (zero rows for pad); it may
// be logits.data itself (computed in place). With dbias non-null, the column sums of that
// gradient are added to it. Rows run in parallel; the sums do not depend on the thread count.
LossStats smoothed_cross_entropy(ConstMat logits, const std::vector<std::int64_t>& labels, std::int64_t pad_id,
                                 float epsilon, float* dlogits, const float* bias = nullptr, float* dbias = nullptr);

}  // namespace tfm
