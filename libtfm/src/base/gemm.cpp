#include "tfm/base/gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cctype>
#include <vector>
#include <mutex>
#include <string>

#include "tfm/base/bfloat16.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/onednn_gemm.hpp"
#include "tfm/base/parallel.hpp"

extern "C" {
// Provided by OpenBLAS.
void openblas_set_num_threads(int);
char* openblas_get_config(void);
char* openblas_get_corename(void);
}

namespace tfm {

namespace {
std::string shape_text(std::size_t r, std::size_t c) { return "[" + std::to_string(r) + "," + std::to_string(c) + "]"; }

// Thread-count invariance. OpenBLAS computes an element of C with one of several code paths
// depending on where its row falls in the call: the kernels take rows in groups (12 for the
// Haswell/Zen kernel, whose first and last 6 rows of a group round differently; 24 for the
// AVX-512 one) and the rows of a last, partial group go through narrower code. And how a
// column is rounded depends on how many columns its call has. So the calls one product is
// split into are fixed by its shape alone: column blocks by n, row slabs that start at
// multiples of the row group, so that every row keeps its place in its group. Threads only
// change which thread makes which call.
std::size_t row_quantum() {
    static const std::size_t q = [] {
        std::string core = openblas_get_corename();
        for (char& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        const bool avx2_kernel = core.find("haswell") != std::string::npos || core.find("zen") != std::string::npos;
        return avx2_kernel && !__builtin_cpu_supports("avx512f") ? std::size_t(12) : std::size_t(24);
    }();
    return q;
}

// On CPUs with AVX-512, OpenBLAS takes other paths for small products (a "small matrix"
// kernel up to 10^6 multiply-adds, a "direct" one for NN products below 28*512*512), chosen
// per call from its size: rows are split between threads only into calls too large for either.
bool may_take_small_path(std::size_t m, std::size_t n, std::size_t k) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    return avx512 && double(m) * double(n) * double(k) < 28.0 * 512 * 512;
}

// Column blocks: whole up to 384 columns, halves up to 8192 (two calls to share even when
// there are few rows, as in decoding steps; few enough that the rows, packed again for each
// block, stay cheap in training), else blocks of 4096 (large vocabularies).
std::size_t column_block(std::size_t n) {
    if (n <= 384) return n;
    if (n <= 8192) return ((n + 1) / 2 + 15) / 16 * 16;
    return 4096;
}

// At most this many rows per call (a multiple of every row group): OpenBLAS walks a call's rows
// in blocks of its own (thousands, set when it starts), and a call within one block keeps every
// row in its place in its group.
constexpr std::size_t kMaxSlab = 8160;

struct Call {
    std::size_t i0, rows, j0, cols;
};

thread_local ComputeType t_precision = ComputeType::Float32;
std::atomic<std::uint64_t> g_flops{0};

// A dense copy of m with every element rounded to bfloat16 (rows in parallel).
ConstMat rounded_to_bfloat16(ConstMat m, std::vector<float>& buf) {
    buf.resize(m.rows * m.cols);
    parallel_for(m.rows, [&](std::size_t i) {
        const float* src = m.data + i * m.ld;
        float* dst = buf.data() + i * m.cols;
        for (std::size_t j = 0; j < m.cols; ++j) dst[j] = round_to_bfloat16(src[j]);
    });
    return mat(buf.data(), m.rows, m.cols);
}

// The product as float32 sgemm calls, split as the comment above says (shapes checked, k > 0).
void split_sgemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta);

}  // namespace

ProductPrecision::ProductPrecision(ComputeType t) : previous_(t_precision) {
    if (t == ComputeType::Int8) throw Error("gemm: products in int8 are for packed weights only (packed_matrix.hpp)");
    t_precision = t;
}

ProductPrecision::~ProductPrecision() { t_precision = previous_; }

ComputeType ProductPrecision::current() { return t_precision; }

GemmShape gemm_shape(ConstMat c, ConstMat a, Op op_a, ConstMat b, Op op_b) {
    const std::size_t m = op_a == Op::N ? a.rows : a.cols;
    const std::size_t k = op_a == Op::N ? a.cols : a.rows;
    const std::size_t kb = op_b == Op::N ? b.rows : b.cols;
    const std::size_t n = op_b == Op::N ? b.cols : b.rows;
    if (k != kb || c.rows != m || c.cols != n)
        throw Error("gemm: shapes do not match: " + shape_text(a.rows, a.cols) + (op_a == Op::T ? "^T" : "") +
                    " x " + shape_text(b.rows, b.cols) + (op_b == Op::T ? "^T" : "") + " -> " + shape_text(c.rows, c.cols));
    return {m, n, k};
}

void scale_for_empty_product(Mat c, float beta) {
    for (std::size_t i = 0; i < c.rows; ++i)
        for (std::size_t j = 0; j < c.cols; ++j) c.data[i * c.ld + j] = beta == 0.0f ? 0.0f : beta * c.data[i * c.ld + j];
}

void gemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta) {
    const GemmShape shape = gemm_shape(c, a, op_a, b, op_b);  // named: clang 14 lambdas cannot capture bindings
    const std::size_t m = shape.m, n = shape.n, k = shape.k;
    if (m == 0 || n == 0) return;
    g_flops.fetch_add(2 * std::uint64_t(m) * n * k, std::memory_order_relaxed);
    if (k == 0) return scale_for_empty_product(c, beta);
    if (t_precision == ComputeType::BFloat16) {
        // The CPU's bf16 units through oneDNN where it has them; elsewhere (tests on any CPU)
        // the same arithmetic: the operands rounded once, then multiplied as in float32.
        static const bool units = compute_type_supported(ComputeType::BFloat16);
        if (units) return onednn_gemm(c, a, op_a, b, op_b, alpha, beta, ComputeType::BFloat16);
        thread_local std::vector<float> a16, b16;
        return split_sgemm(c, rounded_to_bfloat16(a, a16), op_a, rounded_to_bfloat16(b, b16), op_b, alpha, beta);
    }
    split_sgemm(c, a, op_a, b, op_b, alpha, beta);
}

namespace {

void split_sgemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta) {
    const std::size_t m = c.rows, n = c.cols, k = op_a == Op::N ? a.cols : a.rows;
    static std::once_flag single;
    std::call_once(single, [] { openblas_set_num_threads(1); });  // our pool does the threading
    const std::size_t q = row_quantum(), width = column_block(n);
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const std::size_t threads = in_parallel() || flops < 4.0e6 ? 1 : std::size_t(num_threads());
    const std::size_t col_blocks = (n + width - 1) / width;
    // Row slabs: multiples of q, enough for a call per thread.
    const std::size_t row_parts = std::max<std::size_t>(1, (threads + col_blocks - 1) / col_blocks);
    std::vector<Call> calls;
    for (std::size_t j0 = 0; j0 < n; j0 += width) {
        const std::size_t cols = std::min(width, n - j0);
        // A plan of slab-row calls keeps every row on OpenBLAS's ordinary path if its smallest
        // call does; the one-thread plan is used unless both plans do.
        const auto ordinary = [&](std::size_t slab) {
            const std::size_t last = m - (m - 1) / slab * slab;
            return !may_take_small_path(std::min(slab, last), cols, k);
        };
        const std::size_t one_thread = std::min(m, kMaxSlab);
        std::size_t slab = std::min(((m + row_parts - 1) / row_parts + q - 1) / q * q, kMaxSlab);
        if (slab >= one_thread || !ordinary(slab) || !ordinary(one_thread)) slab = one_thread;
        for (std::size_t i0 = 0; i0 < m; i0 += slab) calls.push_back({i0, std::min(slab, m - i0), j0, cols});
    }
    const CBLAS_TRANSPOSE ta = op_a == Op::N ? CblasNoTrans : CblasTrans, tb = op_b == Op::N ? CblasNoTrans : CblasTrans;
    auto run = [&](const Call& call) {
        const float* ap = op_a == Op::N ? a.data + call.i0 * a.ld : a.data + call.i0;
        const float* bp = op_b == Op::N ? b.data + call.j0 : b.data + call.j0 * b.ld;
        cblas_sgemm(CblasRowMajor, ta, tb, int(call.rows), int(call.cols), int(k), alpha, ap, int(a.ld), bp, int(b.ld),
                    beta, c.data + call.i0 * c.ld + call.j0, int(c.ld));
    };
    if (threads <= 1 || calls.size() == 1) {
        for (const Call& call : calls) run(call);
        return;
    }
    parallel_for(calls.size(), [&](std::size_t i) { run(calls[i]); });
}

}  // namespace

double gemm_flops_done() { return double(g_flops.load(std::memory_order_relaxed)); }

std::size_t gemm_row_quantum() { return row_quantum(); }

void gemv(float* y, ConstMat a, Op op_a, const float* x, float alpha, float beta) {
    const std::size_t rows = op_a == Op::N ? a.rows : a.cols, cols = op_a == Op::N ? a.cols : a.rows;
    if (rows == 0) return;
    if (cols == 0) {
        for (std::size_t i = 0; i < rows; ++i) y[i] = beta == 0.0f ? 0.0f : beta * y[i];
        return;
    }
    cblas_sgemv(CblasRowMajor, op_a == Op::N ? CblasNoTrans : CblasTrans, int(a.rows), int(a.cols), alpha, a.data,
                int(a.ld), x, 1, beta, y, 1);
}

const char* blas_description() {
    static const std::string s = std::string("OpenBLAS (") + openblas_get_corename() + "; " +
                                 openblas_get_config() + ")";
    return s.c_str();
}

}  // namespace tfm
