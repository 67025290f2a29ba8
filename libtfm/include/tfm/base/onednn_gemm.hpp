// The products of mixed-precision training on the CPU's bfloat16 units: gemm (gemm.hpp) with
// both operands converted to bfloat16 and multiplied by oneDNN's matmul, which dispatches to
// AMX tiles or AVX512-BF16 (vdpbf16ps) and sums in float32. gemm takes this path inside a
// ProductPrecision(bfloat16) scope where compute_type_supported(bfloat16).
#pragma once

#include "tfm/base/compute_type.hpp"
#include "tfm/base/gemm.hpp"

namespace tfm {

// C = alpha * op(A) * op(B) + beta * C, op(A) [M,K], op(B) [K,N], C [M,N] (shapes checked as
// gemm checks them). `operands`: float32 (as they are) or bfloat16 (rounded as
// base/bfloat16.hpp rounds); the sums, alpha, beta and C in float32.
// The rows of C are cut into slabs whose sizes depend on M alone and the pool shares them
// out, each a one-threaded oneDNN call: the bits do not depend on the thread count.
// Throws tfm::Error where oneDNN has no matmul for `operands` on this CPU (int8: always).
void onednn_gemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta, ComputeType operands);

}  // namespace tfm
