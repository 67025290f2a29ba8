// A weight matrix packed once, for the products inference repeats: y = x W^T + b with W
// [N,K] (a Linear's [out,in]). Decoding multiplies the same weights every step; handing them
// to sgemm each time repacks them each time (a quarter of base-model decoding). Here they are
// reordered once into the blocked layout of oneDNN's matmul kernels, in the compute type
// (fp32, bf16, or int8 with a scale per row of W), and only the activations move per call.
//
// Determinism (docs/numerics.md): a product is cut into calls by its shape alone (columns
// in blocks fixed by N, rows in slabs fixed by M); threads only share those calls out, so
// results do not depend on the thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "tfm/base/compute_type.hpp"
#include "tfm/base/gemm.hpp"

namespace tfm {

class PackedMatrix {
public:
    // w [N,K], copied (quantised for int8) into the packed layout; w may be freed after.
    // Throws tfm::Error when the CPU lacks the instructions of `type` (require_compute_type).
    PackedMatrix(ConstMat w, ComputeType type);
    // As above, W [n,k] read a few hundred rows at a time: read(row0, rows, dst) writes rows
    // [row0, row0+rows) of W into dst [rows,k] (a large matrix packed straight from its file,
    // never whole in fp32). Blocks are packed in parallel: read is called from several threads
    // at once, in no particular order, and must be safe for that.
    using RowReader = std::function<void(std::size_t row0, std::size_t rows, float* dst)>;
    PackedMatrix(std::size_t n, std::size_t k, ComputeType type, const RowReader& read);
    ~PackedMatrix();
    PackedMatrix(const PackedMatrix&) = delete;
    PackedMatrix& operator=(const PackedMatrix&) = delete;

    std::size_t rows() const { return n_; }  // N: outputs
    std::size_t cols() const { return k_; }  // K: inputs
    ComputeType type() const { return type_; }
    std::size_t bytes() const;  // the packed storage

    // y [M,N] = x [M,K] W^T (+ bias [N], unless null). NaN or Inf in a row of x gives NaN
    // across that row of y under int8 (no integer holds them), as fp32 sums would mostly do.
    void multiply(Mat y, ConstMat x, const float* bias = nullptr) const;

    // Row i of W [K] into out, as the products see it (rounded to bf16, or int8 times its
    // scale): a tied embedding table reads its rows from its packed output projection.
    void row(std::size_t i, float* out) const;

    // The oneDNN kernel a product of `rows` rows runs on ("brg:avx512_core_amx_int8", ...;
    // "ref:..." would be its slow reference code).
    std::string implementation(std::size_t rows) const;
    // Whether a row's result has the same bits whatever other rows share its call: true on
    // oneDNN's brgemm kernels (AVX-512, AMX); the jit gemm that AVX2 CPUs run rounds a row by
    // where it falls in its call, so there a batch must keep its rows together.
    bool rows_independent() const;

    struct Block;

private:
    std::size_t n_, k_;
    ComputeType type_;
    std::unique_ptr<Block[]> blocks_;
    std::size_t block_count_ = 0;
};

}  // namespace tfm
