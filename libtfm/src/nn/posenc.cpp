#include "tfm/nn/posenc.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tfm/base/error.hpp"

namespace tfm {

PeLayout parse_pe_layout(const std::string& name) {
    if (name == "interleaved") return PeLayout::Interleaved;
    if (name == "halves") return PeLayout::Halves;
    throw UsageError("unknown layout '" + name + "' (expected interleaved or halves)");
}

double pe_frequency(std::size_t i, std::size_t d, double base) {
    return std::pow(base, -2.0 * double(i) / double(d));
}

namespace {

// Column of the sine and cosine of pair i (cos column == d when the pair has no cosine).
struct PairCols {
    std::size_t sin_col, cos_col;
};
PairCols pair_cols(std::size_t i, std::size_t d, PeLayout layout) {
    if (layout == PeLayout::Interleaved) return {2 * i, 2 * i + 1 < d ? 2 * i + 1 : d};
    std::size_t half = (d + 1) / 2;  // sines fill the first ceil(D/2) columns
    return {i, half + i < d ? half + i : d};
}

std::size_t num_pairs(std::size_t d) { return (d + 1) / 2; }

void check_dim(std::size_t d) {
    if (d == 0) throw UsageError("the encoding dimension D must be at least 1");
}

// One row of PE for position pos, computed in double.
void encode_row(float* row, double pos, std::size_t d, const PeOptions& opt) {
    for (std::size_t i = 0; i < num_pairs(d); ++i) {
        double angle = pos * pe_frequency(i, d, opt.base);
        PairCols c = pair_cols(i, d, opt.layout);
        row[c.sin_col] = static_cast<float>(std::sin(angle));
        if (c.cos_col < d) row[c.cos_col] = static_cast<float>(std::cos(angle));
    }
}

}  // namespace

xt::xtensor<float, 2> sinusoidal_encoding(std::size_t t, std::size_t d, const PeOptions& opt) {
    check_dim(d);
    auto pe = xt::xtensor<float, 2>::from_shape({t, d});
    for (std::size_t p = 0; p < t; ++p) encode_row(pe.data() + p * d, opt.offset + double(p), d, opt);
    return pe;
}

xt::xtensor<float, 2> fairseq_sinusoidal_table(std::size_t n, std::size_t d, std::size_t offset) {
    if (d < 4) throw UsageError("fairseq's sinusoids need a dimension of at least 4, got " + std::to_string(d));
    const std::size_t half = d / 2;
    const float step = float(std::log(10000.0) / double(half - 1));
    std::vector<float> w(half);
    for (std::size_t j = 0; j < half; ++j) w[j] = float(std::exp(double(float(j) * -step)));
    xt::xtensor<float, 2> pe = xt::zeros<float>({n, d});
    for (std::size_t r = 0; r < n; ++r) {
        float* row = pe.data() + r * d;
        const float p = float(offset + r);
        for (std::size_t j = 0; j < half; ++j) {
            const double angle = double(p * w[j]);  // rounded to float32 first, as fairseq's table is
            row[j] = float(std::sin(angle));
            row[half + j] = float(std::cos(angle));
        }
    }
    return pe;
}

void add_positional_encoding(Mat x, float scale, const PeOptions& opt) {
    check_dim(x.cols);
    std::vector<float> row(x.cols);
    for (std::size_t p = 0; p < x.rows; ++p) {
        encode_row(row.data(), opt.offset + double(p), x.cols, opt);
        float* xr = x.data + p * x.ld;
        for (std::size_t j = 0; j < x.cols; ++j) xr[j] = xr[j] * scale + row[j];
    }
}

xt::xtensor<float, 2> relative_rotation_table(std::size_t n, std::size_t d, long k, const PeOptions& opt) {
    check_dim(d);
    std::size_t pairs = d / 2;  // only complete sine/cosine pairs rotate
    auto pe = sinusoidal_encoding(n, d, opt);
    PeOptions shifted = opt;
    shifted.offset += double(k);
    auto pe_k = sinusoidal_encoding(n, d, shifted);
    auto table = xt::xtensor<float, 2>::from_shape({pairs, 7});
    for (std::size_t i = 0; i < pairs; ++i) {
        double w = pe_frequency(i, d, opt.base);
        double c = std::cos(w * double(k)), s = std::sin(w * double(k));
        PairCols col = pair_cols(i, d, opt.layout);
        double err = 0;
        for (std::size_t p = 0; p < n; ++p) {
            double sp = pe(p, col.sin_col), cp = pe(p, col.cos_col);
            double sk = c * sp + s * cp, ck = -s * sp + c * cp;
            err = std::max({err, std::fabs(sk - pe_k(p, col.sin_col)), std::fabs(ck - pe_k(p, col.cos_col))});
        }
        float row[7] = {float(i), float(w), float(c), float(s), float(-s), float(c), float(err)};
        std::copy(row, row + 7, &table(i, 0));
    }
    return table;
}

xt::xtensor<float, 2> distance_dot_table(std::size_t d, long max_k, double pos, const PeOptions& opt) {
    check_dim(d);
    if (max_k < 0) throw UsageError("the largest distance must be non-negative");
    std::vector<float> a(d), b(d);
    encode_row(a.data(), pos, d, opt);
    auto table = xt::xtensor<float, 2>::from_shape({std::size_t(2 * max_k + 1), 2});
    for (long k = -max_k; k <= max_k; ++k) {
        encode_row(b.data(), pos + double(k), d, opt);
        double dot = 0;
        for (std::size_t j = 0; j < d; ++j) dot += double(a[j]) * double(b[j]);
        std::size_t r = std::size_t(k + max_k);
        table(r, 0) = float(k);
        table(r, 1) = float(dot);
    }
    return table;
}

}  // namespace tfm
