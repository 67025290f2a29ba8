#include "tfm/nn/embedding.hpp"

#include "tfm/base/error.hpp"

namespace tfm {

void embed(Mat x, const std::int64_t* ids, const std::size_t* positions, const EmbeddingRows& table,
           const xt::xtensor<float, 2>& position_table, float scale) {
    const std::size_t d = x.cols, v = table.rows(), p = position_table.shape(0);
    if (table.cols() != d || position_table.shape(1) != d)
        throw Error("embedding: width " + std::to_string(d) + " does not fit the tables");
    for (std::size_t i = 0; i < x.rows; ++i) {
        if (ids[i] < 0 || std::size_t(ids[i]) >= v)
            throw Error("token id " + std::to_string(ids[i]) + " is outside the vocabulary of " + std::to_string(v));
        if (positions[i] >= p && positions[i] != kNoPosition)
            throw Error("position " + std::to_string(positions[i]) + " is beyond max_position_embeddings=" +
                        std::to_string(p));
        float* out = x.data + i * x.ld;
        const float* e = table.row(std::size_t(ids[i]), out);  // out as the buffer: read before written
        if (positions[i] == kNoPosition) {
            for (std::size_t j = 0; j < d; ++j) out[j] = e[j] * scale;
            continue;
        }
        const float* pe = position_table.data() + positions[i] * d;
        for (std::size_t j = 0; j < d; ++j) out[j] = e[j] * scale + pe[j];
    }
}

void embed_backward(ConstMat dx, const std::int64_t* ids, const std::size_t* positions, float scale,
                    xt::xtensor<float, 2>& dtable, xt::xtensor<float, 2>* dposition_table) {
    const std::size_t d = dx.cols;
    for (std::size_t i = 0; i < dx.rows; ++i) {
        const float* r = dx.data + i * dx.ld;
        float* e = dtable.data() + std::size_t(ids[i]) * d;
        for (std::size_t j = 0; j < d; ++j) e[j] += scale * r[j];
        if (dposition_table && positions[i] != kNoPosition) {
            float* p = dposition_table->data() + positions[i] * d;
            for (std::size_t j = 0; j < d; ++j) p[j] += r[j];
        }
    }
}

}  // namespace tfm
