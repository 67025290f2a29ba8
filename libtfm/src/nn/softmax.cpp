#include "tfm/nn/softmax.hpp"

#include <algorithm>

#include "tfm/base/fast_math.hpp"

namespace tfm {

std::size_t PrefixMask::visible(std::size_t i, std::size_t tq, std::size_t tk) const {
    std::size_t n = std::min(key_len, tk);
    if (!causal) return n;
    // Query i stands at position i + (tk - tq) of the key sequence.
    if (tk + i + 1 < tq) return 0;
    return std::min(n, tk + i + 1 - tq);
}

void softmax_rows(Mat s, const PrefixMask& mask, std::size_t first, std::size_t tq, std::size_t tk) {
    for (std::size_t i = 0; i < s.rows; ++i) {
        float* row = s.data + i * s.ld;
        std::size_t n = std::min(s.cols, mask.visible(first + i, tq, tk));
        std::fill(row + n, row + s.cols, 0.0f);
        if (n == 0) continue;
        float mx = max_of(row, n);
        float sum = exp_shifted(row, row, n, mx);
        float inv = 1.0f / sum;
        for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
    }
}

}  // namespace tfm
