// Sinusoidal positional encoding (paper §3.5):
//   PE(pos, 2i) = sin(pos / base^(2i/D)),  PE(pos, 2i+1) = cos(pos / base^(2i/D))
// in the paper's interleaved layout, or with all sines in the first half and all cosines in
// the second (tensor2tensor, HF Marian). Odd D: the last column is the sine of frequency
// D/2 (interleaved) or of the extra first-half column (halves, as HF Marian does).
#pragma once

#include <cstddef>
#include <string>

#include <xtensor/xtensor.hpp>

#include "tfm/base/gemm.hpp"

namespace tfm {

// Which position encoding a model adds to its embeddings. SinusoidalFairseq: fairseq's table
// (M2M100, NLLB-200; fairseq_sinusoidal_table), its positions counted from 2.
enum class PositionKind { SinusoidalInterleaved, SinusoidalHalves, Learned, SinusoidalFairseq };

enum class PeLayout { Interleaved, Halves };
PeLayout parse_pe_layout(const std::string& name);  // "interleaved" | "halves"

struct PeOptions {
    double offset = 0;     // position of the first row
    double base = 10000;
    PeLayout layout = PeLayout::Interleaved;
};

// omega_i = base^(-2i/D), the angular frequency of sine/cosine pair i.
double pe_frequency(std::size_t i, std::size_t d, double base);

// [T,D]
xt::xtensor<float, 2> sinusoidal_encoding(std::size_t t, std::size_t d, const PeOptions& opt);

// fairseq's sinusoids, as M2M100 and NLLB-200 add them (HF's M2M100SinusoidalPositionalEmbedding):
// with H = floor(D/2) and w_j = exp(-j * ln(10000) / (H - 1)), row p holds sin(p w_j) in columns
// j < H and cos(p w_j) in columns H + j; odd D: the last column 0. Computed in float32 step by
// step as fairseq does (the angle p * w_j rounded to float32), so the table is the one those
// models were trained with. Rows for positions offset .. offset+n-1 (those models count the
// tokens that are not padding from padding_idx + 1 = 2). D >= 4 (UsageError otherwise). [n,D]
xt::xtensor<float, 2> fairseq_sinusoidal_table(std::size_t n, std::size_t d, std::size_t offset);

// x [T,D] = x * scale + PE(offset .. offset+T-1)
void add_positional_encoding(Mat x, float scale, const PeOptions& opt);

// Relative positions are linear maps: for each pair i, [sin, cos](pos + k) = M_i(k) [sin, cos](pos)
// with M_i(k) = [[cos w_i k, sin w_i k], [-sin w_i k, cos w_i k]]. One row per pair:
// [i, w_i, M00, M01, M10, M11, max error of applying M_i(k) to the float encoding of
// positions offset .. offset+n-1]. [floor(D/2), 7]
xt::xtensor<float, 2> relative_rotation_table(std::size_t n, std::size_t d, long k, const PeOptions& opt);

// PE(pos) . PE(pos + k) for k = -max_k .. max_k: rows [k, dot]. [2 max_k + 1, 2]
xt::xtensor<float, 2> distance_dot_table(std::size_t d, long max_k, double pos, const PeOptions& opt);

}  // namespace tfm
