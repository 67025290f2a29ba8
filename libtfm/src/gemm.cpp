#include "tfm/gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "tfm/error.hpp"
#include "tfm/parallel.hpp"

extern "C" {
// Provided by OpenBLAS.
void openblas_set_num_threads(int);
char* openblas_get_config(void);
char* openblas_get_corename(void);
}

namespace tfm {

namespace {
std::string dims(std::size_t r, std::size_t c) { return "[" + std::to_string(r) + "," + std::to_string(c) + "]"; }
}  // namespace

void gemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta) {
    const std::size_t m = op_a == Op::N ? a.rows : a.cols;
    const std::size_t k = op_a == Op::N ? a.cols : a.rows;
    const std::size_t kb = op_b == Op::N ? b.rows : b.cols;
    const std::size_t n = op_b == Op::N ? b.cols : b.rows;
    if (k != kb || c.rows != m || c.cols != n)
        throw Error("gemm: shapes do not match: " + dims(a.rows, a.cols) + (op_a == Op::T ? "^T" : "") +
                    " x " + dims(b.rows, b.cols) + (op_b == Op::T ? "^T" : "") + " -> " + dims(c.rows, c.cols));
    if (m == 0 || n == 0) return;
    if (k == 0) {  // BLAS leaves C untouched when k == 0 only if beta == 1
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) c.data[i * c.ld + j] = beta == 0.0f ? 0.0f : beta * c.data[i * c.ld + j];
        return;
    }
    static std::once_flag single;
    std::call_once(single, [] { openblas_set_num_threads(1); });  // our pool does the threading
    auto call = [&](std::size_t i0, std::size_t mi, std::size_t j0, std::size_t nj) {
        const float* ap = op_a == Op::N ? a.data + i0 * a.ld : a.data + i0;
        const float* bp = op_b == Op::N ? b.data + j0 : b.data + j0 * b.ld;
        cblas_sgemm(CblasRowMajor, op_a == Op::N ? CblasNoTrans : CblasTrans,
                    op_b == Op::N ? CblasNoTrans : CblasTrans, int(mi), int(nj), int(k), alpha, ap,
                    int(a.ld), bp, int(b.ld), beta, c.data + i0 * c.ld + j0, int(c.ld));
    };
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const std::size_t threads = std::size_t(num_threads());
    if (in_parallel() || threads <= 1 || flops < 4.0e6) return call(0, m, 0, n);
    // Split the larger of M and N into one slab per thread, in multiples of 16.
    const bool by_rows = m >= n;
    const std::size_t len = by_rows ? m : n;
    const std::size_t parts = std::min(threads, std::max<std::size_t>(1, len / 16));
    const std::size_t slab = (len / parts + 15) / 16 * 16;
    parallel_for(parts, [&](std::size_t p) {
        std::size_t first = p * slab;
        if (first >= len) return;
        std::size_t count = std::min(slab, len - first);
        if (by_rows)
            call(first, count, 0, n);
        else
            call(0, m, first, count);
    });
}

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
