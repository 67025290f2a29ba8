// Matrix views and how tfm multiplies matrices: OpenBLAS sgemm (training, attention; weights
// packed for inference go through packed_matrix.hpp instead). Views carry a row
// stride, so a head of a [T,D] activation (columns h*K..h*K+K-1) is a view, not a copy:
// that is the reshape [T,D] -> [T,H,K] -> [H,T,K] of multi-head attention.
#pragma once

#include <cstddef>

#include "tfm/base/compute_type.hpp"

namespace tfm {

struct ConstMat {
    const float* data;
    std::size_t rows, cols, ld;  // row-major; element (i,j) at data[i*ld + j]
    ConstMat cols_range(std::size_t first, std::size_t n) const { return {data + first, rows, n, ld}; }
    ConstMat rows_range(std::size_t first, std::size_t n) const { return {data + first * ld, n, cols, ld}; }
};

struct Mat {
    float* data;
    std::size_t rows, cols, ld;
    operator ConstMat() const { return {data, rows, cols, ld}; }
    Mat cols_range(std::size_t first, std::size_t n) const { return {data + first, rows, n, ld}; }
    Mat rows_range(std::size_t first, std::size_t n) const { return {data + first * ld, n, cols, ld}; }
};

// A dense row-major [rows,cols] matrix over contiguous storage.
inline Mat mat(float* data, std::size_t rows, std::size_t cols) { return {data, rows, cols, cols}; }
inline ConstMat mat(const float* data, std::size_t rows, std::size_t cols) { return {data, rows, cols, cols}; }

enum class Op { N, T };  // use the matrix as is, or transposed

// The M, N, K of C = op(A) op(B); throws tfm::Error naming the shapes when they do not fit.
struct GemmShape {
    std::size_t m, n, k;
};
GemmShape gemm_shape(ConstMat c, ConstMat a, Op op_a, ConstMat b, Op op_b);
// The product when K is 0: C = beta * C, and 0 when beta is 0 whatever C held (BLAS would
// leave C untouched, which is right only for beta = 1).
void scale_for_empty_product(Mat c, float beta);

// C = alpha * op(A) * op(B) + beta * C; shapes are checked (throws tfm::Error).
// The same bits for any thread count: the calls a product is split into (columns in blocks
// fixed by n, rows in slabs that start at multiples of gemm_row_quantum()) depend on its
// shape alone; threads only share them out. (Across batches a row can round differently:
// OpenBLAS's kernels round a row by its place in their group of rows; see docs/numerics.md.)
void gemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha = 1.0f, float beta = 0.0f);
// The precision of the products gemm makes on this thread while a scope lives: float32 (the
// default), or bfloat16 for mixed-precision training: both operands rounded to bfloat16
// (base/bfloat16.hpp), their products, exact in float32, summed in float32, alpha and beta
// applied in float32 (what bf16 units with float32 accumulation compute, up to the order of
// the sums). Where the CPU has bfloat16 units (AMX, AVX512-BF16) the products go through
// oneDNN (onednn_gemm.hpp); elsewhere the rounded operands go through sgemm, split as in
// float32. Either way the bits do not depend on the thread count. gemv (incremental
// decoding) is not affected.
class ProductPrecision {
public:
    explicit ProductPrecision(ComputeType t);  // float32 or bfloat16 (int8: Error)
    ~ProductPrecision();
    ProductPrecision(const ProductPrecision&) = delete;
    ProductPrecision& operator=(const ProductPrecision&) = delete;
    static ComputeType current();

private:
    ComputeType previous_;
};

// The multiply-adds times two (2*M*N*K) of every gemm call so far, all threads together: what
// a benchmark divides by its time to give the products' GFLOP/s.
double gemm_flops_done();

// The row group of the running OpenBLAS kernel (12 or 24) that row slabs keep to.
std::size_t gemm_row_quantum();

// y = alpha * op(A) x + beta * y (sgemv): x has op(A).cols elements, y op(A).rows. For the
// one-query products of incremental decoding, where sgemm's set-up would dominate.
void gemv(float* y, ConstMat a, Op op_a, const float* x, float alpha = 1.0f, float beta = 0.0f);

// Large products are split across the thread pool (parallel.hpp); OpenBLAS itself is set
// to one thread, so nothing is oversubscribed.
// "OpenBLAS 0.3.21 (Haswell, pthreads)" or similar.
const char* blas_description();

}  // namespace tfm
