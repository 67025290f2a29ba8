#include "tfm/nn/multihead.hpp"

#include <algorithm>

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"

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
Linear load_linear(const TensorFile& f, const std::string& name, std::size_t d) {
    Linear l;
    l.weight = f.get(name + ".weight", {d, d});
    if (f.contains(name + ".bias")) l.bias = f.get(name + ".bias", {d});
    return l;
}
}  // namespace

MultiHeadParams load_multihead(const TensorFile& f, const std::string& prefix,
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
// Projects x with `layer` into buf, or returns x itself when there is no projection.
ConstMat project(std::vector<float>& buf, ConstMat x, const Linear* layer) {
    if (!layer) return x;
    buf.resize(x.rows * layer->out());
    Mat y = mat(buf.data(), x.rows, layer->out());
    linear_forward(y, x, *layer);
    return y;
}
const Linear* ptr(const std::optional<Linear>& l) { return l ? &*l : nullptr; }

// Where the context goes: ws.ctx when an output projection follows, else y itself.
Mat context(Mat y, const MultiHeadParams& p, MultiHeadWorkspace& ws) {
    if (!p.out) return y;
    ws.ctx.resize(y.rows * y.cols);
    return mat(ws.ctx.data(), y.rows, y.cols);
}

// The steps every path shares once queries, keys and values are projected: attention per
// item (additive or dot-product scores) into ctx, then the output projection into y.
void attend_and_project(Mat y, Mat ctx, const std::vector<AttentionItem>& items, const AttentionOptions& opt,
                        const MultiHeadParams& p) {
    if (p.additive)
        additive_attention(items, opt.heads, opt.causal, *p.additive);
    else
        dot_product_attention(items, opt);
    if (p.out) linear_forward(y, ctx, *p.out);
}

void check_widths(ConstMat y, ConstMat x_q, std::size_t d, std::size_t heads) {
    if (x_q.cols != d || y.cols != d || y.rows != x_q.rows)
        throw Error("multi-head attention: query width " + std::to_string(x_q.cols) + " and output [" +
                    std::to_string(y.rows) + "," + std::to_string(y.cols) + "] do not fit D=" + std::to_string(d));
    head_size(d, heads);
}
}  // namespace

void multihead_forward(Mat y, ConstMat x_q, ConstMat x_k, ConstMat x_v, const std::vector<SequenceSpan>& spans,
                       const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws,
                       MultiHeadSaved* keep) {
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
    const std::vector<SequenceSpan>* plan = &spans;
    if (keep) {  // the backward pass needs the weights of every span, and all four projections
        if (!p.q || !p.k || !p.value_proj() || !p.out || p.additive)
            throw Error("training needs dot-product attention with all four projections");
        std::size_t total = 0;
        for (const SequenceSpan& s : spans) total += opt.heads * s.tq * s.tk;
        keep->weights.assign(total, 0.0f);
        keep->spans = spans;
        std::size_t at = 0;
        for (SequenceSpan& s : keep->spans) {
            s.weights = keep->weights.data() + at;
            at += opt.heads * s.tq * s.tk;
        }
        plan = &keep->spans;
    }
    MultiHeadWorkspace& buf = keep ? *keep : ws;
    ConstMat q = project(buf.q, x_q, ptr(p.q));
    ConstMat k = project(buf.k, x_k, ptr(p.k));
    // With shared K=V projection over the same input, the keys are the values (training
    // keeps them apart: its backward reads both).
    const bool same = !keep && p.shared_kv && x_k.data == x_v.data && x_k.ld == x_v.ld;
    ConstMat v = same ? k : project(buf.v, x_v, p.value_proj());
    Mat ctx = context(y, p, buf);
    std::vector<AttentionItem> items;
    items.reserve(plan->size());
    for (const SequenceSpan& s : *plan) {
        items.push_back({q.rows_range(s.q_first, s.tq), k.rows_range(s.k_first, s.tk), v.rows_range(s.k_first, s.tk),
                         ctx.rows_range(s.q_first, s.tq), s.weights, s.key_len, keep ? keep->dropout : DropoutMask{},
                         keep ? keep->offset(s) : 0});
    }
    attend_and_project(y, ctx, items, opt, p);
}

void multihead_forward(Mat y, float* weights, ConstMat x_q, ConstMat x_k, ConstMat x_v,
                       const PrefixMask& mask, const AttentionOptions& opt,
                       const MultiHeadParams& p, MultiHeadWorkspace& ws) {
    AttentionOptions o = opt;
    o.causal = mask.causal;
    multihead_forward(y, x_q, x_k, x_v, {SequenceSpan{0, x_q.rows, 0, x_k.rows, std::min(mask.key_len, x_k.rows), weights}},
                      o, p, ws);
}

void multihead_step(Mat y, ConstMat x, KeyValueCache& cache, const AttentionOptions& opt, const MultiHeadParams& p,
                    MultiHeadWorkspace& ws) {
    const std::size_t n = x.rows;
    check_widths(y, x, x.cols, opt.heads);
    ConstMat q = project(ws.q, x, ptr(p.q));
    ConstMat k = project(ws.k, x, ptr(p.k));
    ConstMat v = p.shared_kv ? k : project(ws.v, x, p.value_proj());
    cache.append(k, v);
    Mat ctx = context(y, p, ws);
    std::vector<AttentionItem> items(n);
    for (std::size_t r = 0; r < n; ++r)
        items[r] = {q.rows_range(r, 1), cache.keys(r), cache.values(r), ctx.rows_range(r, 1), nullptr, cache.length(), {}, 0};
    AttentionOptions o = opt;
    o.causal = false;  // the cache holds nothing later than this step
    attend_and_project(y, ctx, items, o, p);
}

ProjectedMemory multihead_project_memory(ConstMat memory, const std::vector<std::size_t>& lengths,
                                         const MultiHeadParams& p) {
    ProjectedMemory m;
    m.d = memory.cols;
    m.len = lengths.empty() ? 0 : memory.rows / lengths.size();
    if (m.len * lengths.size() != memory.rows)
        throw Error("multi-head attention: memory of " + std::to_string(memory.rows) + " rows for " +
                    std::to_string(lengths.size()) + " sources");
    m.lengths = lengths;
    const auto keep = [&](std::vector<float>& buf, const Linear* layer) {
        ConstMat r = project(buf, memory, layer);
        if (r.data == memory.data) buf.assign(memory.data, memory.data + memory.rows * memory.cols);  // identity
    };
    keep(m.k, ptr(p.k));
    if (p.shared_kv)
        m.v = m.k;
    else
        keep(m.v, p.value_proj());
    return m;
}

void multihead_attend_memory(Mat y, ConstMat x, const ProjectedMemory& memory, const std::vector<std::size_t>& source,
                             const AttentionOptions& opt, const MultiHeadParams& p, MultiHeadWorkspace& ws,
                             float* weights) {
    const std::size_t n = x.rows, s = memory.len, d = memory.d;
    check_widths(y, x, d, opt.heads);
    if (source.size() != n) throw Error("multi-head attention: " + std::to_string(source.size()) + " sources for " +
                                        std::to_string(n) + " rows");
    ConstMat q = project(ws.q, x, ptr(p.q));
    Mat ctx = context(y, p, ws);
    std::vector<AttentionItem> items(n);
    for (std::size_t r = 0; r < n; ++r) {
        const std::size_t b = source[r];
        if (b >= memory.lengths.size()) throw Error("multi-head attention: source " + std::to_string(b) + " of " +
                                                    std::to_string(memory.lengths.size()));
        items[r] = {q.rows_range(r, 1), mat(memory.k.data() + b * s * d, s, d), mat(memory.v.data() + b * s * d, s, d),
                    ctx.rows_range(r, 1), weights ? weights + r * opt.heads * s : nullptr, memory.lengths[b], {}, 0};
    }
    AttentionOptions o = opt;
    o.causal = false;
    attend_and_project(y, ctx, items, o, p);
}

namespace {
bool same(ConstMat a, ConstMat b) { return a.data == b.data && a.rows == b.rows && a.cols == b.cols && a.ld == b.ld; }
}  // namespace

void multihead_backward(Mat dx_q, Mat dx_k, Mat dx_v, MultiHeadParams& grad, ConstMat dy, ConstMat x_q, ConstMat x_k,
                        ConstMat x_v, const MultiHeadSaved& saved, const AttentionOptions& opt,
                        const MultiHeadParams& p) {
    if (!p.q || !p.k || !p.value_proj() || !p.out || p.additive || !grad.q || !grad.k || !grad.out ||
        !(p.shared_kv || grad.v))
        throw Error("training needs dot-product attention with all four projections");
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
                         dv.rows_range(s.k_first, s.tk), saved.dropout, saved.offset(s)});
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
