// Cosine similarity of vectors, and the k most similar rows of a corpus for many queries at
// once: brute force, the corpus normalised once, each block of queries one sgemm. What
// sentence vectors (tfm-encode --pool) are searched with (tfm-similar).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "tfm/base/gemm.hpp"

namespace tfm {

// a.b / (|a| |b|), in double; 0 when either vector is zero.
double cosine(const float* a, const float* b, std::size_t d);

class CosineIndex {
public:
    explicit CosineIndex(std::size_t dim) : dim_(dim) {}
    // Appends a row v [D]; a zero vector is similar (0) to everything.
    void add(const float* v);
    std::size_t size() const { return rows_; }
    std::size_t dim() const { return dim_; }

    struct Hit {
        std::size_t row;
        float score;
    };
    // For each query row of queries [M,D]: its min(k, size()) most similar rows, best first,
    // ties to the lower row.
    std::vector<std::vector<Hit>> nearest(ConstMat queries, std::size_t k) const;

private:
    std::size_t dim_, rows_ = 0;
    std::vector<float> unit_;  // [N,D] rows scaled to length 1
};

}  // namespace tfm
