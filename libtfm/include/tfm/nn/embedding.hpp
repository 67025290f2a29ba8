// Token embedding, scaled, plus the position encoding: x[i] = E[id_i] * scale + P[pos_i].
#pragma once

#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/base/gemm.hpp"
#include "tfm/base/packed_matrix.hpp"

namespace tfm {

// The rows of an embedding table [V,D]: an fp32 table, or a packed matrix holding it (a tied
// output projection packed for inference, whose fp32 table is then freed).
class EmbeddingRows {
public:
    EmbeddingRows(const xt::xtensor<float, 2>& table) : table_(&table) {}  // NOLINT: a table is its rows
    explicit EmbeddingRows(const PackedMatrix& packed) : packed_(&packed) {}
    std::size_t rows() const { return packed_ ? packed_->rows() : table_->shape(0); }
    std::size_t cols() const { return packed_ ? packed_->cols() : table_->shape(1); }
    // Row i [D]: in the table, or read out of the packed matrix into buf [D].
    const float* row(std::size_t i, float* buf) const {
        if (!packed_) return table_->data() + i * table_->shape(1);
        packed_->row(i, buf);
        return buf;
    }

private:
    const xt::xtensor<float, 2>* table_ = nullptr;
    const PackedMatrix* packed_ = nullptr;
};

// A row with no position (M2M100's padding tokens): nothing is added to its embedding.
constexpr std::size_t kNoPosition = std::size_t(-1);

// x [N,D]; table [V,D]; positions table [P,D] (kNoPosition: none). Throws for an id outside
// the vocabulary or a position past the table, naming both.
void embed(Mat x, const std::int64_t* ids, const std::size_t* positions, const EmbeddingRows& table,
           const xt::xtensor<float, 2>& position_table, float scale);

// Backward of embed: dtable[id_i] += scale * dx[i]; with dposition_table (learned positions),
// dposition_table[pos_i] += dx[i]. Rows in order, so the sums do not depend on threads.
void embed_backward(ConstMat dx, const std::int64_t* ids, const std::size_t* positions, float scale,
                    xt::xtensor<float, 2>& dtable, xt::xtensor<float, 2>* dposition_table);

}  // namespace tfm
