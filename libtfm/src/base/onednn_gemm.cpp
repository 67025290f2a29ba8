#include "tfm/base/onednn_gemm.hpp"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tfm/base/bfloat16.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "onednn_runtime.hpp"

namespace tfm {

namespace {

using dt = dnnl::memory::data_type;

// Rows per call: about a sixteenth of M in multiples of 16, from 32 to 512 rows (whole up to
// 32), so that a training batch's product is enough calls to share out and each call is
// large enough for the kernels' blocking. A function of M alone.
std::size_t slab_rows(std::size_t m) {
    if (m <= 32) return m;
    const std::size_t sixteenth = ((m + 15) / 16 + 15) / 16 * 16;
    return std::clamp<std::size_t>(sixteenth, 32, 512);
}

// One call's primitive: [rows,K] x [K,N] -> [rows,N] dense; the weights [K,N] as stored:
// row-major, or (transposed) an [N,K] row-major array read down its columns.
struct MatmulCall {
    dnnl::matmul matmul;
    dnnl::memory::desc src, weights, dst, scratch;
};
using CallKey = std::tuple<std::size_t, std::size_t, std::size_t, int, bool, std::uint32_t, std::uint32_t>;

std::uint32_t float_bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// Primitives by shape, made once: the shapes of a training run repeat (batches of bounded
// length). Bounded: a run of ever new shapes starts the cache afresh.
std::shared_ptr<const MatmulCall> call_for(std::size_t rows, std::size_t n, std::size_t k, dt type, bool weights_transposed,
                                     float alpha, float beta) {
    static std::mutex mutex;
    static std::map<CallKey, std::shared_ptr<const MatmulCall>> cache;
    const CallKey key{rows, n, k, int(type), weights_transposed, float_bits(alpha), float_bits(beta)};
    {
        const std::lock_guard<std::mutex> lock(mutex);
        const auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    auto call = std::make_shared<MatmulCall>();
    call->src = onednn::matrix_desc(rows, k, type, k);
    call->weights = weights_transposed
                        ? dnnl::memory::desc({dnnl::memory::dim(k), dnnl::memory::dim(n)}, type, dnnl::memory::format_tag::ba)
                        : onednn::matrix_desc(k, n, type, n);
    call->dst = onednn::matrix_desc(rows, n, dt::f32, n);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(beta);
        attr.set_post_ops(ops);
    }
    try {
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(call->src, call->weights, call->dst), attr,
                                              onednn::engine());
        call->scratch = pd.scratchpad_desc();
        call->matmul = dnnl::matmul(pd);
    } catch (const dnnl::error& e) {
        throw Error(std::string("gemm: oneDNN has no matmul for these operands on this CPU (") + e.what() + ")");
    }
    const std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 512) cache.clear();
    return cache.emplace(key, std::move(call)).first->second;
}

// Element (i, j) of m, or of its transpose, stored in `type`.
template <class T>
T convert(float x) {
    if constexpr (sizeof(T) == 2) return bfloat16_bits(x);
    else return x;
}

// op(m) as a dense row-major array of T (bf16 bits or float): rows in parallel; a transposed
// view is read in 32 x 32 tiles, so that neither side is walked across rows element by element.
template <class T>
void dense_copy(T* out, ConstMat m, Op op) {
    if (op == Op::N) {
        parallel_blocks(m.rows, 64, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i)
                for (std::size_t j = 0; j < m.cols; ++j) out[i * m.cols + j] = convert<T>(m.data[i * m.ld + j]);
        });
        return;
    }
    constexpr std::size_t kTile = 32;  // out [m.cols, m.rows]
    parallel_blocks(m.cols, kTile, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t r0 = 0; r0 < m.rows; r0 += kTile) {
            const std::size_t r1 = std::min(m.rows, r0 + kTile);
            for (std::size_t c = c0; c < c1; ++c)
                for (std::size_t r = r0; r < r1; ++r) out[c * m.rows + r] = convert<T>(m.data[r * m.ld + c]);
        }
    });
}

// The operand in `type`, dense: transposed when `op` is, or as stored (`op` ignored).
void dense_operand(std::vector<std::uint8_t>& out, ConstMat m, Op op, dt type) {
    out.resize(m.rows * m.cols * (type == dt::bf16 ? 2 : 4));
    if (type == dt::bf16) dense_copy(reinterpret_cast<std::uint16_t*>(out.data()), m, op);
    else dense_copy(reinterpret_cast<float*>(out.data()), m, op);
}

}  // namespace

void onednn_gemm(Mat c, ConstMat a, Op op_a, ConstMat b, Op op_b, float alpha, float beta, ComputeType operands) {
    const GemmShape shape = gemm_shape(c, a, op_a, b, op_b);  // named: clang 14 lambdas cannot capture bindings
    const std::size_t m = shape.m, n = shape.n, k = shape.k;
    if (operands == ComputeType::Int8) throw Error("gemm: products in int8 are for packed weights only");
    if (m == 0 || n == 0) return;
    if (k == 0) return scale_for_empty_product(c, beta);
    const dt type = operands == ComputeType::BFloat16 ? dt::bf16 : dt::f32;
    const std::size_t elem = type == dt::bf16 ? 2 : 4;
    // The operands once, dense, in the operand type: A16 [M,K]; B16 as B is stored ([K,N], or
    // [N,K] for op_b = T, which oneDNN reads as its transpose).
    thread_local std::vector<std::uint8_t> a16, b16;
    dense_operand(a16, a, op_a, type);
    dense_operand(b16, b, Op::N, type);
    const bool b_t = op_b == Op::T;
    // oneDNN's fast kernels write dense rows: a C whose rows are wider than N (a view) is
    // computed into a buffer and combined here.
    const bool direct = c.ld == n;
    const std::size_t slab = slab_rows(m), slabs = (m + slab - 1) / slab;
    const std::uint8_t* a_all = a16.data();
    const std::uint8_t* b_all = b16.data();
    parallel_for(slabs, [&](std::size_t s) {
        const std::size_t i0 = s * slab, rows = std::min(slab, m - i0);
        const auto call = direct ? call_for(rows, n, k, type, b_t, alpha, beta) : call_for(rows, n, k, type, b_t, 1.0f, 0.0f);
        onednn::ThreadRuntime& rt = onednn::thread_runtime();
        thread_local std::vector<float> buffer;
        float* dst = c.data + i0 * c.ld;
        if (!direct) {
            buffer.resize(rows * n);
            dst = buffer.data();
        }
        const dnnl::engine& eng = onednn::engine();
        std::unordered_map<int, dnnl::memory> args{
            {DNNL_ARG_SRC, dnnl::memory(call->src, eng, const_cast<std::uint8_t*>(a_all + i0 * k * elem))},
            {DNNL_ARG_WEIGHTS, dnnl::memory(call->weights, eng, const_cast<std::uint8_t*>(b_all))},
            {DNNL_ARG_DST, dnnl::memory(call->dst, eng, dst)},
            {DNNL_ARG_SCRATCHPAD, rt.scratch_memory(call->scratch)}};
        call->matmul.execute(rt.stream, args);
        rt.stream.wait();
        if (direct) return;
        for (std::size_t i = 0; i < rows; ++i) {
            float* out = c.data + (i0 + i) * c.ld;
            const float* p = buffer.data() + i * n;
            if (beta == 0.0f)
                for (std::size_t j = 0; j < n; ++j) out[j] = alpha * p[j];
            else
                for (std::size_t j = 0; j < n; ++j) out[j] = alpha * p[j] + beta * out[j];
        }
    });
}

}  // namespace tfm
