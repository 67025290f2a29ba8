// A multi-head attention layer: projections, attention over H heads, output projection.
//   y = out_proj(attention(q_proj(x_q), k_proj(x_k), v_proj(x_v)))
// Each projection may be absent (identity: the "no W^Q, W^K, W^V" ablation), K and V may
// share one projection, and the score may be scaled dot-product, unscaled, or additive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tfm/nn/additive_attention.hpp"
#include "tfm/nn/attention.hpp"
#include "tfm/nn/kv_cache.hpp"
#include "tfm/nn/linear.hpp"
#include "tfm/io/safetensors.hpp"

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
MultiHeadParams load_multihead(const TensorFile& file, const std::string& prefix,
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

// What training keeps of a multi-head attention forward for its backward pass: the
// projections and the context (in the workspace's buffers), every span's attention weights.
// The caller sets `dropout` before the forward: the mask on the attention probabilities,
// indexed by position in `weights`.
struct MultiHeadSaved : MultiHeadWorkspace {
    std::vector<float> weights;       // every span's [H,tq,tk], one after another
    std::vector<SequenceSpan> spans;  // with weights pointing into `weights`
    DropoutMask dropout;
    std::size_t offset(const SequenceSpan& s) const { return std::size_t(s.weights - weights.data()); }
};

// The one multi-head attention forward (every path below shares its projection, attention
// and output steps). y [Nq,D] from x_q [Nq,D], x_k [Nk,D], x_v [Nk,D] holding many
// sequences: every projection is one product over all rows, attention runs per span. With
// keep (training), the projections, context and weights are kept there for
// multihead_backward, which needs dot-product scores and all four projections.
void multihead_forward(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                       const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws,
                       MultiHeadSaved* keep = nullptr);

// One sequence: y [Tq,D] from x_q [Tq,D], x_k [Tk,D], x_v [Tk,D]; weights [H,Tq,Tk] or nullptr.
void multihead_forward(Mat y, float* weights, ConstMat x_q, ConstMat x_k, ConstMat x_v,
                       const PrefixMask& mask, const AttentionOptions& opt,
                       const MultiHeadParams& p, MultiHeadWorkspace& ws);

// multihead_forward keeping what the backward pass needs in saved.
inline void multihead_forward_train(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v,
                                    const std::vector<SequenceSpan>& spans, const AttentionOptions& opt,
                                    const MultiHeadParams& p, MultiHeadSaved& saved) {
    multihead_forward(y, x_q, x_k, x_v, spans, opt, p, saved, &saved);
}

// One decoding step of self-attention: x [N,D] holds one new position per row of the cache.
// Its keys and values are appended to the cache, then each row attends over everything the
// cache holds (no mask is needed: no later position exists yet).
void multihead_step(Mat y, ConstMat x, KeyValueCache& cache, const AttentionOptions& opt, const MultiHeadParams& p,
                    MultiHeadWorkspace& ws);

// The keys and values of a batch of sources' memory [B*S,D], projected once per batch for
// every step's encoder-decoder attention.
struct ProjectedMemory {
    std::vector<float> k, v;              // [B*S,D] each
    std::size_t len = 0, d = 0;           // S, D
    std::vector<std::size_t> lengths;     // [B] real tokens per source (the rest is padding)
};
ProjectedMemory multihead_project_memory(ConstMat memory, const std::vector<std::size_t>& lengths,
                                         const MultiHeadParams& p);

// Attention of x [N,D] (queries, one row per hypothesis) over a projected memory: row r
// attends to the keys of source source[r]. weights, when set, receives [N,H,S] (zero past a
// row's source).
void multihead_attend_memory(Mat y, ConstMat x, const ProjectedMemory& memory, const std::vector<std::size_t>& source,
                             const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws,
                             float* weights = nullptr);

// Backward: grad (shaped like p) accumulates the projections' gradients; dx_q, dx_k, dx_v
// are added to (they may be the same matrix, as in self-attention).
void multihead_backward(Mat dx_q, Mat dx_k, Mat dx_v, MultiHeadParams& grad, ConstMat dy, ConstMat x_q, ConstMat x_k,
                        ConstMat x_v, const MultiHeadSaved& saved, const AttentionOptions& opt,
                        const MultiHeadParams& p);

// FLOPs of one multihead_forward with dot-product scores.
double multihead_flops(std::size_t tq, std::size_t tk, std::size_t d, const MultiHeadParams& p);

}  // namespace tfm
