#include "tfm/base/nearest.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {
double norm(const float* v, std::size_t d) {
    double s = 0;
    for (std::size_t j = 0; j < d; ++j) s += double(v[j]) * double(v[j]);
    return std::sqrt(s);
}
}  // namespace

double cosine(const float* a, const float* b, std::size_t d) {
    const double na = norm(a, d), nb = norm(b, d);
    if (na == 0 || nb == 0) return 0;
    double dot = 0;
    for (std::size_t j = 0; j < d; ++j) dot += double(a[j]) * double(b[j]);
    return dot / (na * nb);
}

void CosineIndex::add(const float* v) {
    const double n = norm(v, dim_);
    const std::size_t at = unit_.size();
    unit_.resize(at + dim_);
    for (std::size_t j = 0; j < dim_; ++j) unit_[at + j] = n > 0 ? float(double(v[j]) / n) : 0.0f;
    ++rows_;
}

std::vector<std::vector<CosineIndex::Hit>> CosineIndex::nearest(ConstMat queries, std::size_t k) const {
    if (queries.cols != dim_)
        throw Error("nearest: queries of width " + std::to_string(queries.cols) + " for vectors of " + std::to_string(dim_));
    std::vector<std::vector<Hit>> out(queries.rows);
    if (rows_ == 0 || k == 0) return out;
    k = std::min(k, rows_);
    constexpr std::size_t kBlock = 256;  // queries per product: scores [kBlock,N]
    std::vector<float> q, scores;
    for (std::size_t first = 0; first < queries.rows; first += kBlock) {
        const std::size_t m = std::min(kBlock, queries.rows - first);
        q.resize(m * dim_);
        for (std::size_t i = 0; i < m; ++i) {
            const float* row = queries.data + (first + i) * queries.ld;
            const double n = norm(row, dim_);
            for (std::size_t j = 0; j < dim_; ++j) q[i * dim_ + j] = n > 0 ? float(double(row[j]) / n) : 0.0f;
        }
        scores.resize(m * rows_);
        gemm(mat(scores.data(), m, rows_), mat(q.data(), m, dim_), Op::N, mat(unit_.data(), rows_, dim_), Op::T);
        for (std::size_t i = 0; i < m; ++i) {
            const float* s = scores.data() + i * rows_;
            std::vector<Hit> hits(rows_);
            for (std::size_t r = 0; r < rows_; ++r) hits[r] = {r, s[r]};
            auto better = [](const Hit& a, const Hit& b) { return a.score != b.score ? a.score > b.score : a.row < b.row; };
            std::partial_sort(hits.begin(), hits.begin() + long(k), hits.end(), better);
            hits.resize(k);
            out[first + i] = std::move(hits);
        }
    }
    return out;
}

}  // namespace tfm
