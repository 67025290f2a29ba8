#include "tfm/base/packed_matrix.hpp"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tfm/base/bfloat16.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/quantize.hpp"
#include "onednn_runtime.hpp"

namespace tfm {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

using onednn::engine;
constexpr auto matrix_md = onednn::matrix_desc;

// A thread's buffers beside oneDNN's (onednn_runtime.hpp: its stream and scratch memory).
struct ThreadContext {
    std::vector<std::int32_t> sums;  // int8: the int32 products of one call [rows,cols]
    std::vector<float> out;          // a call's dense [rows,cols] result, when y's rows are wider
    std::vector<std::uint8_t> pair;  // bf16, int8: a single row, twice
    // Packing: a block's rows of W, in fp32 and in the compute type. Kept from one matrix to
    // the next, so that loading a model does not leave the heap strewn with freed buffers.
    std::vector<float> pack_rows;
    std::vector<std::uint16_t> pack_half;
    std::vector<std::int8_t> pack_quantised;
};
ThreadContext& thread_context() {
    thread_local ThreadContext c;
    return c;
}

dt weight_type(ComputeType t) {
    switch (t) {
        case ComputeType::Float32: return dt::f32;
        case ComputeType::BFloat16: return dt::bf16;
        case ComputeType::Int8: return dt::s8;
    }
    return dt::f32;
}

// Columns in blocks fixed by N: whole up to 384, else blocks of 256 (enough calls to share
// out in a decoding step, large enough that a call's set-up stays small).
constexpr std::size_t kBlockColumns = 256;
std::size_t block_columns(std::size_t n) { return n <= 384 ? n : kBlockColumns; }
// Rows in slabs fixed by M: the few row counts seen get primitives of their own, cached.
constexpr std::size_t kSlabRows = 512;

// f32 -> bf16 (base/bfloat16.hpp's rounding).
void to_bf16(std::uint16_t* out, const float* in, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = bfloat16_bits(in[i]);
}

}  // namespace

// One block of columns [j0, j0+n) of W^T, packed; its primitives by (rows, strides, bias).
struct PackedMatrix::Block {
    std::size_t j0 = 0, n = 0;
    dnnl::memory::desc weights_md;
    dnnl::memory weights;
    std::vector<float> scales;  // int8: [n] the scale of each row of W
    struct Call {
        dnnl::matmul matmul;
        dnnl::memory::desc src, dst, bias, scratch_md;
        std::string implementation;
    };
    mutable std::mutex mutex;
    mutable std::map<std::pair<std::size_t, bool>, std::shared_ptr<const Call>> calls;  // by (rows, bias)
    // row(): where element (k, 0) lies, for each k (made at the first call; the layout's
    // offsets are a sum of one term per dimension, so (k, j) is this plus that of (0, j)).
    mutable std::once_flag offsets_made;
    mutable std::vector<std::size_t> k_offsets;
};

namespace {

dnnl::matmul::primitive_desc matmul_pd(const dnnl::memory::desc& src, const dnnl::memory::desc& weights,
                                       const dnnl::memory::desc* bias, const dnnl::memory::desc& dst) {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
        if (bias) return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, *bias, dst), attr, engine());
        return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine());
    } catch (const dnnl::error& e) {
        throw Error(std::string("packed product: oneDNN has no matmul for these types on this CPU (") + e.what() + ")");
    }
}

// The activations' type for a compute type: f32 as they are, bf16 or s8 converted per call.
dt source_type(ComputeType t) { return weight_type(t); }
dt sum_type(ComputeType t) { return t == ComputeType::Int8 ? dt::s32 : dt::f32; }

}  // namespace

PackedMatrix::PackedMatrix(ConstMat w, ComputeType type)
    : PackedMatrix(w.rows, w.cols, type, [&w](std::size_t row0, std::size_t rows, float* dst) {
          for (std::size_t j = 0; j < rows; ++j)
              std::copy(w.data + (row0 + j) * w.ld, w.data + (row0 + j) * w.ld + w.cols, dst + j * w.cols);
      }) {}

PackedMatrix::PackedMatrix(std::size_t n, std::size_t k, ComputeType type, const RowReader& read)
    : n_(n), k_(k), type_(type) {
    require_compute_type(type);
    if (n_ == 0 || k_ == 0) return;
    const std::size_t width = block_columns(n_);
    block_count_ = (n_ + width - 1) / width;
    blocks_ = std::make_unique<Block[]>(block_count_);
    const dt wt = weight_type(type);
    // Every block but the last has the same width, so the same layout and reorder: asked of
    // oneDNN once per width, not once per block (a 256k-row output layer has a thousand blocks,
    // and making their primitives dominated its packing). Primitives are immutable, so the
    // blocks are then packed in parallel, each thread with its own stream and buffers.
    struct Layout {
        std::size_t n = 0;
        dnnl::memory::desc packed, plain;
        dnnl::reorder reorder;
    };
    std::vector<Layout> layouts;
    for (std::size_t cols : {width, n_ - (block_count_ - 1) * width}) {
        if (!layouts.empty() && layouts.front().n == cols) continue;
        // The layout the kernels want, asked of a primitive for a typical row count.
        const dnnl::memory::desc any(dims{dnnl::memory::dim(k_), dnnl::memory::dim(cols)}, wt, tag::any);
        const auto pd = matmul_pd(matrix_md(64, k_, source_type(type), k_), any, nullptr,
                                  matrix_md(64, cols, sum_type(type), cols));
        Layout l;
        l.n = cols;
        l.packed = pd.weights_desc();
        // A block's rows of W [n,K] are W^T [K,n] in column-major order ("ba").
        l.plain = dnnl::memory::desc(dims{dnnl::memory::dim(k_), dnnl::memory::dim(cols)}, wt, tag::ba);
        l.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), l.plain, engine(), l.packed));
        layouts.push_back(std::move(l));
    }
    parallel_for(block_count_, [&](std::size_t b) {
        ThreadContext& ctx = thread_context();
        std::vector<std::int8_t>& q = ctx.pack_quantised;
        std::vector<std::uint16_t>& h = ctx.pack_half;
        std::vector<float>& rows = ctx.pack_rows;  // the block's rows of W [n,K]
        Block& blk = blocks_[b];
        blk.j0 = b * width;
        blk.n = std::min(width, n_ - blk.j0);
        const Layout& layout = layouts.front().n == blk.n ? layouts.front() : layouts.back();
        blk.weights_md = layout.packed;
        blk.weights = dnnl::memory(blk.weights_md, engine());
        rows.resize(blk.n * k_);
        read(blk.j0, blk.n, rows.data());
        const float* src = rows.data();
        void* plain = nullptr;
        if (type == ComputeType::Float32) {
            plain = const_cast<float*>(src);
        } else if (type == ComputeType::BFloat16) {
            h.resize(blk.n * k_);
            to_bf16(h.data(), src, blk.n * k_);
            plain = h.data();
        }
        if (type == ComputeType::Int8) {
            q.resize(blk.n * k_);
            for (std::size_t j = 0; j < blk.n; ++j) {
                const float s = quantize_row_int8(q.data() + j * k_, src + j * k_, k_);
                if (std::isnan(s))
                    throw Error("int8 weights: row " + std::to_string(blk.j0 + j) + " of a [" + std::to_string(n_) +
                                "," + std::to_string(k_) + "] matrix holds NaN or Inf, which int8 cannot hold");
                blk.scales.push_back(s);
            }
            plain = q.data();
        }
        dnnl::memory plain_mem(layout.plain, engine(), plain);
        dnnl::stream& stream = onednn::thread_runtime().stream;
        layout.reorder.execute(stream, plain_mem, blk.weights);
        stream.wait();
    });
}

PackedMatrix::~PackedMatrix() = default;

namespace {

// The primitive of a block for `rows` dense rows in and out, made once and kept.
std::shared_ptr<const PackedMatrix::Block::Call> block_call(const PackedMatrix::Block& blk, ComputeType type,
                                                             std::size_t k, std::size_t rows, bool bias) {
    const auto key = std::make_pair(rows, bias);
    std::lock_guard<std::mutex> lock(blk.mutex);
    auto it = blk.calls.find(key);
    if (it != blk.calls.end()) return it->second;
    auto call = std::make_shared<PackedMatrix::Block::Call>();
    call->src = matrix_md(rows, k, source_type(type), k);
    call->dst = matrix_md(rows, blk.n, sum_type(type), blk.n);
    call->bias = matrix_md(1, blk.n, dt::f32, blk.n);
    const auto pd = matmul_pd(call->src, blk.weights_md, bias ? &call->bias : nullptr, call->dst);
    call->matmul = dnnl::matmul(pd);
    call->implementation = pd.impl_info_str();
    call->scratch_md = pd.scratchpad_desc();
    blk.calls.emplace(key, call);
    return call;
}

// Rows [i0, i0+rows) of y through one block, from dense activations `src` [M,K] (already in the compute
// type; for int8 with a scale per row in row_scales).
void run_block(const PackedMatrix::Block& blk, ComputeType type, std::size_t k, Mat y, const void* src,
               std::size_t elem, std::size_t i0, std::size_t rows, const float* bias,
               const float* row_scales) {
    ThreadContext& ctx = thread_context();
    const bool int8 = type == ComputeType::Int8;
    const bool fused_bias = bias && !int8;
    // oneDNN's fast kernels write dense rows only: a block narrower than y's rows goes
    // through a buffer of its own (a copy of rows x n floats, small beside the product).
    const bool buffered = !int8 && y.ld != blk.n;
    // A single bf16 or int8 row runs as two (itself twice): oneDNN has no AMX kernel for one
    // row (bf16 takes one that sums in another order, so that a row would depend on its
    // batch; int8 its slow reference code).
    const bool doubled = type != ComputeType::Float32 && rows == 1;
    const std::size_t run_rows = doubled ? 2 : rows;
    const auto call = block_call(blk, type, k, run_rows, fused_bias);
    const void* a = static_cast<const char*>(src) + i0 * k * elem;
    if (doubled) {
        ctx.pair.resize(2 * k * elem);
        std::memcpy(ctx.pair.data(), a, k * elem);
        std::memcpy(ctx.pair.data() + k * elem, a, k * elem);
        a = ctx.pair.data();
    }
    void* c = y.data + i0 * y.ld + blk.j0;
    if (int8) {
        ctx.sums.resize(run_rows * blk.n);
        c = ctx.sums.data();
    } else if (buffered || doubled) {
        ctx.out.resize(run_rows * blk.n);
        c = ctx.out.data();
    }
    dnnl::memory src_mem(call->src, engine(), const_cast<void*>(a));
    dnnl::memory dst_mem(call->dst, engine(), c);
    onednn::ThreadRuntime& rt = onednn::thread_runtime();
    dnnl::memory scratch_mem = rt.scratch_memory(call->scratch_md);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, blk.weights},
                                               {DNNL_ARG_DST, dst_mem}, {DNNL_ARG_SCRATCHPAD, scratch_mem}};
    if (fused_bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(call->bias, engine(), const_cast<float*>(bias + blk.j0)));
    call->matmul.execute(rt.stream, args);
    rt.stream.wait();
    if (!int8 && (buffered || doubled))
        for (std::size_t i = 0; i < rows; ++i)
            std::copy(ctx.out.data() + i * blk.n, ctx.out.data() + (i + 1) * blk.n, y.data + (i0 + i) * y.ld + blk.j0);
    if (!int8) return;
    // y = sums * (row scale * column scale) + bias; a row scale of NaN (NaN or Inf in the row) gives NaN
    for (std::size_t i = 0; i < rows; ++i) {
        const float sa = row_scales[i0 + i];
        const std::int32_t* s = ctx.sums.data() + i * blk.n;
        float* out = y.data + (i0 + i) * y.ld + blk.j0;
        const float* sw = blk.scales.data();
        if (bias)
            for (std::size_t j = 0; j < blk.n; ++j) out[j] = float(s[j]) * (sa * sw[j]) + bias[blk.j0 + j];
        else
            for (std::size_t j = 0; j < blk.n; ++j) out[j] = float(s[j]) * (sa * sw[j]);
    }
}

}  // namespace

std::string PackedMatrix::implementation(std::size_t rows) const {
    if (block_count_ == 0 || rows == 0) return "none";
    const std::size_t run = rows == 1 && type_ != ComputeType::Float32 ? 2 : std::min(rows, kSlabRows);
    return block_call(blocks_[0], type_, k_, run, false)->implementation;
}

namespace {

std::string shape(std::size_t r, std::size_t c) { return "[" + std::to_string(r) + "," + std::to_string(c) + "]"; }

}  // namespace

void PackedMatrix::multiply(Mat y, ConstMat x, const float* bias) const {
    if (x.cols != k_ || y.cols != n_ || y.rows != x.rows)
        throw Error("packed product: " + shape(x.rows, x.cols) + " x " + shape(n_, k_) + "^T -> " + shape(y.rows, y.cols));
    const std::size_t m = x.rows;
    if (m == 0 || n_ == 0) return;
    if (k_ == 0) {
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n_; ++j) y.data[i * y.ld + j] = bias ? bias[j] : 0.0f;
        return;
    }
    // The activations in the compute type: as they are (fp32), or converted once for all
    // blocks, into buffers of the calling thread (named through references: inside the tasks
    // a thread_local would name each worker's own).
    thread_local std::vector<float> dense_buf;
    thread_local std::vector<std::uint16_t> half_buf;
    thread_local std::vector<std::int8_t> quantised_buf;
    thread_local std::vector<float> scales_buf;
    std::vector<float>& dense = dense_buf;
    std::vector<std::uint16_t>& half = half_buf;
    std::vector<std::int8_t>& quantised = quantised_buf;
    std::vector<float>& row_scales = scales_buf;
    const void* src = x.data;
    std::size_t elem = sizeof(float);
    if (type_ == ComputeType::Float32 && x.ld != k_) {  // dense rows, as the fast kernels read them
        dense.resize(m * k_);
        for (std::size_t i = 0; i < m; ++i) std::copy(x.data + i * x.ld, x.data + i * x.ld + k_, dense.data() + i * k_);
        src = dense.data();
    } else if (type_ == ComputeType::BFloat16) {
        half.resize(m * k_);
        parallel_blocks(m, 64, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) to_bf16(half.data() + i * k_, x.data + i * x.ld, k_);
        });
        src = half.data(), elem = sizeof(std::uint16_t);
    } else if (type_ == ComputeType::Int8) {
        quantised.resize(m * k_);
        row_scales.resize(m);
        parallel_blocks(m, 64, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) row_scales[i] = quantize_row_int8(quantised.data() + i * k_, x.data + i * x.ld, k_);
        });
        src = quantised.data(), elem = sizeof(std::int8_t);
    }
    const std::size_t slabs = (m + kSlabRows - 1) / kSlabRows, calls = slabs * block_count_;
    const float* scales = row_scales.data();
    auto run = [&](std::size_t c) {
        const std::size_t b = c % block_count_, i0 = (c / block_count_) * kSlabRows;
        run_block(blocks_[b], type_, k_, y, src, elem, i0, std::min(kSlabRows, m - i0), bias, scales);
    };
    const double flops = 2.0 * double(m) * double(n_) * double(k_);
    if (calls == 1 || in_parallel() || flops < 2.0e6 || num_threads() == 1) {
        for (std::size_t c = 0; c < calls; ++c) run(c);
    } else {
        parallel_for(calls, run);
    }
}

bool PackedMatrix::rows_independent() const {
    const auto brgemm = [&](std::size_t rows) { return implementation(rows).rfind("brg", 0) == 0; };
    return block_count_ == 0 || (brgemm(1) && brgemm(kSlabRows));
}

namespace {

// The position of element (k, j) of a [K,n] blocked oneDNN layout, in elements.
std::size_t element_offset(const dnnl_memory_desc_t& md, std::size_t k, std::size_t j) {
    const dnnl_blocking_desc_t& b = md.format_desc.blocking;
    dnnl_dim_t pos[2] = {dnnl_dim_t(k), dnnl_dim_t(j)};
    dnnl_dim_t off = md.offset0, stride = 1;
    for (int i = b.inner_nblks - 1; i >= 0; --i) {  // innermost block first
        const int d = int(b.inner_idxs[i]);
        off += (pos[d] % b.inner_blks[i]) * stride;
        stride *= b.inner_blks[i];
        pos[d] /= b.inner_blks[i];
    }
    return std::size_t(off + pos[0] * b.strides[0] + pos[1] * b.strides[1]);
}

}  // namespace

void PackedMatrix::row(std::size_t i, float* out) const {
    if (i >= n_) throw Error("packed matrix: row " + std::to_string(i) + " of " + std::to_string(n_));
    const std::size_t width = block_columns(n_);
    const Block& blk = blocks_[i / width];
    const std::size_t j = i - blk.j0;
    const dnnl_memory_desc_t& md = blk.weights_md.data;
    if (md.format_kind != dnnl_blocked) throw Error("packed matrix: oneDNN chose a layout that is not blocked");
    std::call_once(blk.offsets_made, [&] {
        blk.k_offsets.resize(k_);
        for (std::size_t k = 0; k < k_; ++k) blk.k_offsets[k] = element_offset(md, k, 0);
    });
    const std::size_t column = element_offset(md, 0, j) - element_offset(md, 0, 0);
    const void* base = blk.weights.get_data_handle();
    for (std::size_t k = 0; k < k_; ++k) {
        const std::size_t at = blk.k_offsets[k] + column;
        switch (type_) {
            case ComputeType::Float32: out[k] = static_cast<const float*>(base)[at]; break;
            case ComputeType::BFloat16: out[k] = bfloat16_value(static_cast<const std::uint16_t*>(base)[at]); break;
            case ComputeType::Int8: out[k] = float(static_cast<const std::int8_t*>(base)[at]) * blk.scales[j]; break;
        }
    }
}

std::size_t PackedMatrix::bytes() const {
    std::size_t total = 0;
    for (std::size_t b = 0; b < block_count_; ++b) total += blocks_[b].weights_md.get_size();
    return total;
}

}  // namespace tfm
