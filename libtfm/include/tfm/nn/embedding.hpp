// Token embedding, scaled, plus the position encoding: x[i] = E[id_i] * scale + P[pos_i].
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/base/gemm.hpp"

namespace tfm {

// x [N,D]; table [V,D]; positions table [P,D]. Throws for an id outside the vocabulary or a
// position past the table, naming both.
void embed(Mat x, const std::int64_t* ids, const std::size_t* positions, const xt::xtensor<float, 2>& table,
           const xt::xtensor<float, 2>& position_table, float scale);

// Backward of embed: dtable[id_i] += scale * dx[i]; with dposition_table (learned positions),
// dposition_table[pos_i] += dx[i]. Rows in order, so the sums do not depend on threads.
void embed_backward(ConstMat dx, const std::int64_t* ids, const std::size_t* positions, float scale,
                    xt::xtensor<float, 2>& dtable, xt::xtensor<float, 2>* dposition_table);

}  // namespace tfm
