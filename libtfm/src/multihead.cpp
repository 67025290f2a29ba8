#include "tfm/multihead.hpp"

#include <algorithm>

#include "tfm/error.hpp"
#include "tfm/parallel.hpp"

namespace tfm {

MultiHeadParams random_multihead(const MultiHeadConfig& cfg, std::uint64_t seed) {
    Rng rng(seed);
    MultiHeadParams p;
    const std::size_t d = cfg.d;
    const std::size_t dk = head_size(d, cfg.attention.heads);
    p.shared_kv = cfg.shared_kv;
    p.q = random_linear(d, d, rng);
    p.k = random_linear(d, d, rng);
    if (!cfg.shared_kv) p.v = random_linear(d, d, rng);
    p.out = random_linear(d, d, rng);
    if (cfg.additive) p.additive = random_additive(dk, cfg.additive_dim ? cfg.additive_dim : dk, rng);
    return p;
}

namespace {
Linear load_linear(const SafeTensors& f, const std::string& name, std::size_t d) {
    Linear l;
    l.weight = f.get(name + ".weight", {d, d});
    if (f.contains(name + ".bias")) l.bias = f.get(name + ".bias", {d});
    return l;
}
}  // namespace

MultiHeadParams load_multihead(const SafeTensors& f, const std::string& prefix,
                               const MultiHeadConfig& cfg) {
    MultiHeadParams p;
    const std::size_t d = cfg.d;
    const std::size_t dk = head_size(d, cfg.attention.heads);
    p.shared_kv = cfg.shared_kv;
    p.q = load_linear(f, prefix + "q_proj", d);
    p.k = load_linear(f, prefix + "k_proj", d);
    if (!cfg.shared_kv) p.v = load_linear(f, prefix + "v_proj", d);
    p.out = load_linear(f, prefix + "out_proj", d);
    if (cfg.additive) {
        AdditiveParams a;
        a.w = f.get(prefix + "additive.w");
        if (a.w.dimension() != 1) throw Error(f.path() + ": tensor '" + prefix + "additive.w' must be 1-D");
        const std::size_t dim = a.w.size();
        a.wq = f.get(prefix + "additive.q.weight", {dim, dk});
        a.wk = f.get(prefix + "additive.k.weight", {dim, dk});
        p.additive = std::move(a);
    }
    return p;
}

namespace {
// Projects x with `layer`, or returns x itself when there is no projection.
ConstMat project(std::vector<float>& buf, ConstMat x, const Linear* layer) {
    if (!layer) return x;
    buf.resize(x.rows * layer->out());
    Mat y = mat(buf.data(), x.rows, layer->out());
    linear_forward(y, x, *layer);
    return y;
}
const Linear* ptr(const std::optional<Linear>& l) { return l ? &*l : nullptr; }
}  // namespace

void multihead_forward(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                       const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws) {
    if (x_q.cols != x_k.cols || x_k.cols != x_v.cols || y.cols != x_q.cols || y.rows != x_q.rows)
        throw Error("multi-head attention: query, key and value widths differ (" +
                    std::to_string(x_q.cols) + ", " + std::to_string(x_k.cols) + ", " +
                    std::to_string(x_v.cols) + ")");
    if (x_k.rows != x_v.rows)
        throw Error("multi-head attention: " + std::to_string(x_k.rows) + " keys but " +
                    std::to_string(x_v.rows) + " values");
    head_size(x_q.cols, opt.heads);
    for (const SequenceSpan& s : spans)
        if (s.q_first + s.tq > x_q.rows || s.k_first + s.tk > x_k.rows || s.key_len > s.tk)
            throw Error("multi-head attention: a sequence span lies outside its batch");
    ConstMat q = project(ws.q, x_q, ptr(p.q));
    ConstMat k = project(ws.k, x_k, ptr(p.k));
    // With shared K=V projection over the same input, the keys are the values.
    const bool same = p.shared_kv && x_k.data == x_v.data && x_k.ld == x_v.ld;
    ConstMat v = same ? k : project(ws.v, x_v, p.value_proj());
    Mat ctx = p.out ? (ws.ctx.resize(x_q.rows * y.cols), mat(ws.ctx.data(), x_q.rows, y.cols)) : y;
    std::vector<AttentionItem> items;
    items.reserve(spans.size());
    for (const SequenceSpan& s : spans)
        items.push_back({q.rows_range(s.q_first, s.tq), k.rows_range(s.k_first, s.tk), v.rows_range(s.k_first, s.tk),
                         ctx.rows_range(s.q_first, s.tq), s.weights, s.key_len});
    if (p.additive)
        additive_attention(items, opt.heads, opt.causal, *p.additive);
    else
        dot_product_attention(items, opt);
    if (p.out) linear_forward(y, ctx, *p.out);
}

void multihead_forward(Mat y, float* weights, ConstMat x_q, ConstMat x_k, ConstMat x_v,
                       const PrefixMask& mask, const AttentionOptions& opt,
                       const MultiHeadParams& p, MultiHeadWorkspace& ws) {
    AttentionOptions o = opt;
    o.causal = mask.causal;
    multihead_forward(y, x_q, x_k, x_v, {SequenceSpan{0, x_q.rows, 0, x_k.rows, std::min(mask.key_len, x_k.rows), weights}},
                      o, p, ws);
}

void multihead_forward_train(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                             const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadSaved& saved) {
    if (!p.q || !p.k || !p.value_proj() || !p.out || p.additive)
        throw Error("training needs dot-product attention with all four projections");
    const std::size_t d = x_q.cols;
    std::size_t total = 0;
    for (const SequenceSpan& s : spans) total += opt.heads * s.tq * s.tk;
    saved.weights.assign(total, 0.0f);
    saved.spans = spans;
    std::size_t at = 0;
    for (SequenceSpan& s : saved.spans) {
        s.weights = saved.weights.data() + at;
        at += opt.heads * s.tq * s.tk;
    }
    saved.q.resize(x_q.rows * d), saved.k.resize(x_k.rows * d), saved.v.resize(x_v.rows * d);
    saved.ctx.resize(x_q.rows * d);
    Mat q = mat(saved.q.data(), x_q.rows, d), k = mat(saved.k.data(), x_k.rows, d), v = mat(saved.v.data(), x_v.rows, d);
    Mat ctx = mat(saved.ctx.data(), x_q.rows, d);
    linear_forward(q, x_q, *p.q);
    linear_forward(k, x_k, *p.k);
    linear_forward(v, x_v, *p.value_proj());
    std::vector<AttentionItem> items;
    for (const SequenceSpan& s : saved.spans)
        items.push_back({ConstMat(q).rows_range(s.q_first, s.tq), ConstMat(k).rows_range(s.k_first, s.tk),
                         ConstMat(v).rows_range(s.k_first, s.tk), ctx.rows_range(s.q_first, s.tq), s.weights, s.key_len});
    dot_product_attention(items, opt);
    linear_forward(y, ctx, *p.out);
}

namespace {
bool same(ConstMat a, ConstMat b) { return a.data == b.data && a.rows == b.rows && a.cols == b.cols && a.ld == b.ld; }
}  // namespace

void multihead_backward(Mat dx_q, Mat dx_k, Mat dx_v, MultiHeadParams& grad, ConstMat dy, ConstMat x_q, ConstMat x_k,
                        ConstMat x_v, const MultiHeadSaved& saved, const AttentionOptions& opt,
                        const MultiHeadParams& p) {
    const std::size_t d = x_q.cols, nq = x_q.rows, nk = x_k.rows;
    // The gradients of the projections' outputs sit side by side when their inputs (and the
    // gradients of those) are one matrix: [dq|dk|dv] [N,3D] in self-attention, [dk|dv] [Nk,2D]
    // in encoder-decoder attention. Then d input is one product with the stacked weights
    // (K = 3D or 2D) instead of two or three accumulating ones.
    const bool kv_fused = !p.shared_kv && same(x_k, x_v) && same(dx_k, dx_v);
    const bool qkv_fused = kv_fused && same(x_q, x_k) && same(dx_q, dx_k);
    // Scratch kept between calls (per thread): no allocation per layer per batch.
    thread_local std::vector<float> dctx, dq_buf, dkv_buf, w_stack;
    dctx.resize(nq * d);
    // dkv_buf: [dq|dk|dv] [N,3D] side by side, [dk|dv] [Nk,2D] side by side, or dk [Nk,D]
    // then dv [Nk,D]; dq_buf holds dq [Nq,D] unless it is fused.
    const std::size_t width = qkv_fused ? 3 * d : 2 * d;
    dkv_buf.resize(nk * width);
    if (!qkv_fused) dq_buf.resize(nq * d);
    // Zeroed: the attention backward writes the rows of every span, and rows outside all spans
    // (none in training batches, possible through this interface) must contribute nothing.
    parallel_fill(dkv_buf.data(), dkv_buf.size());
    if (!qkv_fused) parallel_fill(dq_buf.data(), dq_buf.size());
    Mat dq, dk, dv;
    if (qkv_fused) {
        dq = {dkv_buf.data(), nq, d, width};
        dk = {dkv_buf.data() + d, nk, d, width};
        dv = {dkv_buf.data() + 2 * d, nk, d, width};
    } else {
        dq = mat(dq_buf.data(), nq, d);
        dk = kv_fused ? Mat{dkv_buf.data(), nk, d, width} : mat(dkv_buf.data(), nk, d);
        dv = kv_fused ? Mat{dkv_buf.data() + d, nk, d, width} : mat(dkv_buf.data() + nk * d, nk, d);
    }
    linear_backward(mat(dctx.data(), nq, d), *grad.out, dy, mat(saved.ctx.data(), nq, d), *p.out);
    std::vector<AttentionGradItem> items;
    for (const SequenceSpan& s : saved.spans)
        items.push_back({mat(saved.q.data(), nq, d).rows_range(s.q_first, s.tq),
                         mat(saved.k.data(), nk, d).rows_range(s.k_first, s.tk),
                         mat(saved.v.data(), nk, d).rows_range(s.k_first, s.tk),
                         mat(dctx.data(), nq, d).rows_range(s.q_first, s.tq), s.weights,
                         dq.rows_range(s.q_first, s.tq), dk.rows_range(s.k_first, s.tk),
                         dv.rows_range(s.k_first, s.tk)});
    dot_product_attention_backward(items, opt);
    Linear& gv = p.shared_kv ? *grad.k : *grad.v;
    const Mat none{nullptr, 0, 0, 0};
    // Weight gradients: one product each; input gradients: fused where the inputs are one.
    linear_backward(qkv_fused ? none : dx_q, *grad.q, dq, x_q, *p.q, true);
    linear_backward(kv_fused ? none : dx_k, *grad.k, dk, x_k, *p.k, true);
    linear_backward(kv_fused ? none : dx_v, gv, dv, x_v, *p.value_proj(), true);
    if (!kv_fused) return;
    // The stacked weights [Wq;Wk;Wv] or [Wk;Wv]: [width,D].
    const Linear* stacked[3];
    std::size_t parts = 0;
    if (qkv_fused) stacked[parts++] = &*p.q;
    stacked[parts++] = &*p.k;
    stacked[parts++] = &*p.v;
    const std::size_t dd = d * d;
    w_stack.resize(parts * dd);
    for (std::size_t i = 0; i < parts; ++i)
        std::copy(stacked[i]->weight.data(), stacked[i]->weight.data() + dd, w_stack.data() + i * dd);
    gemm(dx_k, ConstMat{dkv_buf.data(), nk, width, width}, Op::N, mat(w_stack.data(), width, d), Op::N, 1.0f, 1.0f);
}

double multihead_flops(std::size_t tq, std::size_t tk, std::size_t d, const MultiHeadParams& p) {
    double dd = double(d) * double(d);
    double f = attention_flops(tq, tk, d, d);
    if (p.q) f += 2.0 * double(tq) * dd;
    if (p.k) f += 2.0 * double(tk) * dd;
    if (p.value_proj() && !p.shared_kv) f += 2.0 * double(tk) * dd;
    if (p.out) f += 2.0 * double(tq) * dd;
    return f;
}

}  // namespace tfm
