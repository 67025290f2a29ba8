#include "tfm/multihead.hpp"

#include <algorithm>

#include "tfm/error.hpp"

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

void multihead_backward(Mat dx_q, Mat dx_k, Mat dx_v, MultiHeadParams& grad, ConstMat dy, ConstMat x_q, ConstMat x_k,
                        ConstMat x_v, const MultiHeadSaved& saved, const AttentionOptions& opt,
                        const MultiHeadParams& p) {
    const std::size_t d = x_q.cols, nq = x_q.rows, nk = x_k.rows;
    // Scratch kept between calls (per thread): no allocation per layer per batch.
    thread_local std::vector<float> dctx, dq, dk, dv;
    dctx.resize(nq * d);
    dq.assign(nq * d, 0.0f);
    dk.assign(nk * d, 0.0f);
    dv.assign(nk * d, 0.0f);
    linear_backward(mat(dctx.data(), nq, d), *grad.out, dy, mat(saved.ctx.data(), nq, d), *p.out);
    std::vector<AttentionGradItem> items;
    for (const SequenceSpan& s : saved.spans)
        items.push_back({mat(saved.q.data(), nq, d).rows_range(s.q_first, s.tq),
                         mat(saved.k.data(), nk, d).rows_range(s.k_first, s.tk),
                         mat(saved.v.data(), nk, d).rows_range(s.k_first, s.tk),
                         mat(dctx.data(), nq, d).rows_range(s.q_first, s.tq), s.weights,
                         mat(dq.data(), nq, d).rows_range(s.q_first, s.tq),
                         mat(dk.data(), nk, d).rows_range(s.k_first, s.tk),
                         mat(dv.data(), nk, d).rows_range(s.k_first, s.tk)});
    dot_product_attention_backward(items, opt);
    linear_backward(dx_q, *grad.q, mat(dq.data(), nq, d), x_q, *p.q, true);
    linear_backward(dx_k, *grad.k, mat(dk.data(), nk, d), x_k, *p.k, true);
    Linear& gv = p.shared_kv ? *grad.k : *grad.v;
    linear_backward(dx_v, gv, mat(dv.data(), nk, d), x_v, *p.value_proj(), true);
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
