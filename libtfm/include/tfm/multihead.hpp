// A multi-head attention layer: projections, attention over H heads, output projection.
//   y = out_proj(attention(q_proj(x_q), k_proj(x_k), v_proj(x_v)))
// Each projection may be absent (identity: the "no W^Q, W^K, W^V" ablation), K and V may
// share one projection, and the score may be scaled dot-product, unscaled, or additive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tfm/additive_attention.hpp"
#include "tfm/attention.hpp"
#include "tfm/linear.hpp"
#include "tfm/safetensors.hpp"

namespace tfm {

struct MultiHeadParams {
    std::optional<Linear> q, k, v, out;       // weight [D,D], bias [D]; nullopt = identity
    bool shared_kv = false;                   // values use the k projection
    std::optional<AdditiveParams> additive;   // set: additive scores instead of dot products
    const Linear* value_proj() const { return shared_kv ? (k ? &*k : nullptr) : (v ? &*v : nullptr); }
};

struct MultiHeadConfig {
    std::size_t d = 0;            // D
    AttentionOptions attention;   // heads, causal, scaled
    bool additive = false;
    std::size_t additive_dim = 0; // A; 0 means the head size
    bool shared_kv = false;
};

// Xavier-uniform projections (zero biases), drawn in the order q, k, v, out, additive.
MultiHeadParams random_multihead(const MultiHeadConfig& cfg, std::uint64_t seed);

// From a safetensors file, HF names: {prefix}q_proj.weight [D,D], {prefix}q_proj.bias [D],
// likewise k_proj, v_proj (not read with shared_kv), out_proj; additive scoring reads
// {prefix}additive.q.weight [A,K], {prefix}additive.k.weight [A,K], {prefix}additive.w [A].
MultiHeadParams load_multihead(const SafeTensors& file, const std::string& prefix,
                               const MultiHeadConfig& cfg);

// Scratch buffers reused across calls (no allocation per record once warm).
struct MultiHeadWorkspace {
    std::vector<float> q, k, v, ctx;  // [Tq,D], [Tk,D], [Tk,D], [Tq,D]
};

// Where one sequence lies in the stacked rows of a batch: queries q_first .. q_first+tq-1
// of x_q, keys/values k_first .. k_first+tk-1 of x_k and x_v.
struct SequenceSpan {
    std::size_t q_first = 0, tq = 0, k_first = 0, tk = 0;
    std::size_t key_len = 0;    // keys past it are padding
    float* weights = nullptr;   // [H,tq,tk] or nullptr
};

// y [Nq,D] from x_q [Nq,D], x_k [Nk,D], x_v [Nk,D] holding many sequences: every
// projection is one product over all rows, attention runs per span.
void multihead_forward(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                       const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws);

// One sequence: y [Tq,D] from x_q [Tq,D], x_k [Tk,D], x_v [Tk,D]; weights [H,Tq,Tk] or nullptr.
void multihead_forward(Mat y, float* weights, ConstMat x_q, ConstMat x_k, ConstMat x_v,
                       const PrefixMask& mask, const AttentionOptions& opt,
                       const MultiHeadParams& p, MultiHeadWorkspace& ws);

// What training keeps of a multi-head attention forward for its backward pass.
struct MultiHeadSaved {
    std::vector<float> q, k, v, ctx;  // projected [Nq,D], [Nk,D], [Nk,D]; context [Nq,D]
    std::vector<float> weights;       // every span's [H,tq,tk], one after another
    std::vector<SequenceSpan> spans;  // with weights pointing into `weights`
};

// multihead_forward with dot-product scores and all four projections, keeping what the
// backward pass needs.
void multihead_forward_train(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                             const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadSaved& saved);

// Backward: grad (shaped like p) accumulates the projections' gradients; dx_q, dx_k, dx_v
// are added to (they may be the same matrix, as in self-attention).
void multihead_backward(Mat dx_q, Mat dx_k, Mat dx_v, MultiHeadParams& grad, ConstMat dy, ConstMat x_q, ConstMat x_k,
                        ConstMat x_v, const MultiHeadSaved& saved, const AttentionOptions& opt,
                        const MultiHeadParams& p);

// FLOPs of one multihead_forward with dot-product scores.
double multihead_flops(std::size_t tq, std::size_t tk, std::size_t d, const MultiHeadParams& p);

}  // namespace tfm
