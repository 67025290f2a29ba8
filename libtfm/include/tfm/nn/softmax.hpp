// Numerically stable softmax over the rows of a score matrix, with the prefix masks that
// attention needs: key padding (only the first key_len keys exist) and causality (query i
// sees keys up to its own position). A row with no visible key becomes all zeros, never NaN.
#pragma once

#include <cstddef>

#include "tfm/base/gemm.hpp"

namespace tfm {

struct PrefixMask {
    std::size_t key_len;     // keys j >= key_len are padding
    bool causal = false;     // query i sees keys j <= i + (Tk - Tq)
    // Keys visible to query row i of a [Tq,Tk] score matrix.
    std::size_t visible(std::size_t i, std::size_t tq, std::size_t tk) const;
};

// In place over rows first .. first+s.rows-1 of a [Tq,Tk] score matrix, of which s holds
// the first s.cols columns: s[i,j] = exp(s[i,j] - max) / sum over visible j, 0 elsewhere.
void softmax_rows(Mat s, const PrefixMask& mask, std::size_t first, std::size_t tq, std::size_t tk);

}  // namespace tfm
