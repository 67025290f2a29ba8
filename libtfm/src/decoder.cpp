#include "tfm/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tfm/embedding.hpp"
#include "tfm/error.hpp"
#include "tfm/fast_math.hpp"
#include "tfm/parallel.hpp"

namespace tfm {

void output_logits(Mat y, ConstMat x, const Model& m) {
    const auto& w = m.output_weight();
    const std::size_t v = w.shape(0);
    parallel_for(y.rows, [&](std::size_t i) {
        std::copy(m.final_logits_bias.begin(), m.final_logits_bias.end(), y.data + i * y.ld);
    });
    gemm(y, x, Op::N, mat(w.data(), v, w.shape(1)), Op::T, 1.0f, 1.0f);
}

void log_softmax_rows(Mat logits, std::int64_t masked_id) {
    const std::size_t v = logits.cols;
    parallel_for(logits.rows, [&](std::size_t i) {
        thread_local std::vector<float> scratch;
        scratch.resize(v);
        float* row = logits.data + i * logits.ld;
        if (masked_id >= 0 && std::size_t(masked_id) < v) row[masked_id] = -std::numeric_limits<float>::infinity();
        const float mx = max_of(row, v);
        const float lse = mx + std::log(exp_shifted(scratch.data(), row, v, mx));
        for (std::size_t j = 0; j < v; ++j) row[j] -= lse;
    });
}

namespace {

// Every decoder layer, for the full sequence and for one step alike: self-attention (by the
// caller's function), encoder-decoder attention, feed-forward, each as a residual sublayer.
template <class SelfAttention, class CrossAttention>
void decoder_layers(Mat x, const Model& m, DecoderWorkspace& ws, SelfAttention&& self, CrossAttention&& cross) {
    const ModelConfig& c = m.config;
    for (std::size_t l = 0; l < m.decoder.size(); ++l) {
        const DecoderLayer& layer = m.decoder[l];
        residual_sublayer(x, layer.self_attn_ln, c.norm, ws.sub, [&](Mat out, ConstMat in) { self(l, out, in); });
        residual_sublayer(x, layer.cross_attn_ln, c.norm, ws.sub, [&](Mat out, ConstMat in) { cross(l, out, in); });
        residual_sublayer(x, layer.final_ln, c.norm, ws.sub, [&](Mat out, ConstMat in) {
            feedforward_forward(out, in, layer.ffn, c.activation, ws.hidden);
        });
    }
    if (m.decoder_final_ln) layernorm_forward(x, x, *m.decoder_final_ln);
}

void check_memory(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src) {
    if (memory.shape(0) != src.batch * src.len || memory.shape(1) != m.config.d_model)
        throw Error("decoder: memory [" + std::to_string(memory.shape(0)) + "," + std::to_string(memory.shape(1)) +
                    "] does not fit " + std::to_string(src.batch) + " sources of length " + std::to_string(src.len) +
                    " and D=" + std::to_string(m.config.d_model));
}

}  // namespace

void decoder_forward(xt::xtensor<float, 2>& logits, const Model& m, const TokenBatch& src,
                     const xt::xtensor<float, 2>& memory, const TokenBatch& tgt, DecoderWorkspace& ws) {
    check_memory(m, memory, src);
    if (tgt.batch != src.batch) throw Error("decoder: " + std::to_string(tgt.batch) + " targets for " +
                                            std::to_string(src.batch) + " sources");
    const ModelConfig& c = m.config;
    const std::size_t b = tgt.batch, t = tgt.len, s = src.len, d = c.d_model, n = b * t;
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({n, d});
    std::vector<std::size_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) positions[i] = i % std::max<std::size_t>(t, 1);
    embed(mat(x.data(), n, d), tgt.ids.data(), positions.data(), m.shared, m.decoder_positions, c.embed_scale());
    std::vector<SequenceSpan> self_spans(b), cross_spans(b);
    for (std::size_t i = 0; i < b; ++i) {
        self_spans[i] = {i * t, t, i * t, t, t, nullptr};  // padding targets come last: causality hides them
        cross_spans[i] = {i * t, t, i * s, s, src.lengths[i], nullptr};
    }
    AttentionOptions self_opt;
    self_opt.heads = c.decoder_heads;
    self_opt.causal = true;
    AttentionOptions cross_opt;
    cross_opt.heads = c.decoder_heads;
    ConstMat mem = mat(memory.data(), b * s, d);
    decoder_layers(
        mat(x.data(), n, d), m, ws,
        [&](std::size_t l, Mat out, ConstMat in) {
            multihead_forward(out, in, in, in, self_spans, self_opt, m.decoder[l].self_attn, ws.attn);
        },
        [&](std::size_t l, Mat out, ConstMat in) {
            multihead_forward(out, in, mem, mem, cross_spans, cross_opt, m.decoder[l].cross_attn, ws.attn);
        });
    logits = xt::xtensor<float, 2>::from_shape({n, c.target_vocab()});
    output_logits(mat(logits.data(), n, c.target_vocab()), mat(x.data(), n, d), m);
}

struct DecoderState::Impl {
    const Model& m;
    std::size_t d, cap, steps = 0, src_len;
    std::vector<std::size_t> src_lengths;
    std::vector<std::size_t> source;                       // row -> source sentence
    std::vector<xt::xtensor<float, 2>> cross_k, cross_v;  // per layer [B*S,D]
    std::vector<std::vector<std::vector<float>>> self_k, self_v;  // [layer][row] -> [cap,D]
    DecoderWorkspace ws;
    std::vector<float> x, q, k, v, ctx;                    // [N,D]

    Impl(const Model& model, std::size_t max_steps) : m(model), d(model.config.d_model), cap(max_steps) {}

    // One attention over per-row keys/values; queries q [N,D] -> ctx [N,D].
    void attend_rows(std::size_t n, std::size_t heads, const std::function<ConstMat(std::size_t)>& keys,
                     const std::function<ConstMat(std::size_t)>& values, const std::function<std::size_t(std::size_t)>& len) {
        std::vector<AttentionItem> items(n);
        for (std::size_t r = 0; r < n; ++r)
            items[r] = {mat(q.data() + r * d, 1, d), keys(r), values(r), mat(ctx.data() + r * d, 1, d), nullptr, len(r)};
        AttentionOptions opt;
        opt.heads = heads;
        dot_product_attention(items, opt);
    }
};

DecoderState::DecoderState(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src,
                           std::size_t max_steps)
    : impl_(std::make_unique<Impl>(m, max_steps)) {
    check_memory(m, memory, src);
    Impl& s = *impl_;
    s.src_len = src.len;
    s.src_lengths = src.lengths;
    for (std::size_t i = 0; i < src.batch; ++i) s.source.push_back(i);
    const std::size_t rows = src.batch * src.len;
    ConstMat mem = mat(memory.data(), rows, s.d);
    for (const DecoderLayer& layer : m.decoder) {  // the memory's keys and values, once
        s.cross_k.push_back(xt::xtensor<float, 2>::from_shape({rows, s.d}));
        s.cross_v.push_back(xt::xtensor<float, 2>::from_shape({rows, s.d}));
        linear_forward(mat(s.cross_k.back().data(), rows, s.d), mem, *layer.cross_attn.k);
        linear_forward(mat(s.cross_v.back().data(), rows, s.d), mem, *layer.cross_attn.v);
    }
    s.self_k.assign(m.decoder.size(), std::vector<std::vector<float>>(src.batch));
    s.self_v.assign(m.decoder.size(), std::vector<std::vector<float>>(src.batch));
}

DecoderState::~DecoderState() = default;

std::size_t DecoderState::vocab() const { return impl_->m.config.target_vocab(); }

void DecoderState::step(const std::vector<std::int64_t>& tokens, Mat logprobs) {
    Impl& s = *impl_;
    const Model& m = s.m;
    const ModelConfig& c = m.config;
    const std::size_t n = s.source.size(), d = s.d, t = s.steps;
    if (tokens.size() != n || logprobs.rows != n || logprobs.cols != c.target_vocab())
        throw Error("decoder step: " + std::to_string(tokens.size()) + " tokens for " + std::to_string(n) + " rows");
    if (t >= s.cap) throw Error("decoder step: more than the " + std::to_string(s.cap) + " steps planned");
    s.x.resize(n * d);
    s.q.resize(n * d), s.k.resize(n * d), s.v.resize(n * d), s.ctx.resize(n * d);
    std::vector<std::size_t> positions(n, t);
    Mat x = mat(s.x.data(), n, d);
    embed(x, tokens.data(), positions.data(), m.shared, m.decoder_positions, c.embed_scale());
    decoder_layers(
        x, m, s.ws,
        [&](std::size_t l, Mat out, ConstMat in) {  // masked self-attention over the cache + this step
            const MultiHeadParams& p = m.decoder[l].self_attn;
            linear_forward(mat(s.q.data(), n, d), in, *p.q);
            linear_forward(mat(s.k.data(), n, d), in, *p.k);
            linear_forward(mat(s.v.data(), n, d), in, *p.v);
            for (std::size_t r = 0; r < n; ++r) {
                auto& ck = s.self_k[l][r];
                auto& cv = s.self_v[l][r];
                if (ck.size() < s.cap * d) ck.resize(s.cap * d), cv.resize(s.cap * d);
                std::copy(s.k.begin() + long(r * d), s.k.begin() + long((r + 1) * d), ck.begin() + long(t * d));
                std::copy(s.v.begin() + long(r * d), s.v.begin() + long((r + 1) * d), cv.begin() + long(t * d));
            }
            s.attend_rows(
                n, c.decoder_heads, [&](std::size_t r) { return mat(s.self_k[l][r].data(), t + 1, d); },
                [&](std::size_t r) { return mat(s.self_v[l][r].data(), t + 1, d); }, [&](std::size_t) { return t + 1; });
            linear_forward(out, mat(s.ctx.data(), n, d), *p.out);
        },
        [&](std::size_t l, Mat out, ConstMat in) {  // attention over the sentence's memory
            const MultiHeadParams& p = m.decoder[l].cross_attn;
            linear_forward(mat(s.q.data(), n, d), in, *p.q);
            s.attend_rows(
                n, c.decoder_heads,
                [&](std::size_t r) { return mat(s.cross_k[l].data() + s.source[r] * s.src_len * d, s.src_len, d); },
                [&](std::size_t r) { return mat(s.cross_v[l].data() + s.source[r] * s.src_len * d, s.src_len, d); },
                [&](std::size_t r) { return s.src_lengths[s.source[r]]; });
            linear_forward(out, mat(s.ctx.data(), n, d), *p.out);
        });
    output_logits(logprobs, x, m);
    log_softmax_rows(logprobs, c.pad_id);
    ++s.steps;
}

void DecoderState::select(const std::vector<std::size_t>& rows) {
    Impl& s = *impl_;
    const std::size_t n = s.source.size();
    std::vector<std::size_t> uses(n, 0);
    for (std::size_t r : rows) {
        if (r >= n) throw Error("decoder select: row " + std::to_string(r) + " of " + std::to_string(n));
        ++uses[r];
    }
    std::vector<std::size_t> source;
    for (std::size_t r : rows) source.push_back(s.source[r]);
    // A row's cache moves to its last new place and is copied to the others.
    for (auto* caches : {&s.self_k, &s.self_v}) {
        for (auto& layer : *caches) {
            std::vector<std::vector<float>> next(rows.size());
            for (std::size_t i = 0; i < rows.size(); ++i) {
                auto& old = layer[rows[i]];
                if (--uses[rows[i]] == 0)
                    next[i] = std::move(old);
                else
                    next[i].assign(old.begin(), old.begin() + long(std::min(old.size(), s.steps * s.d)));
            }
            layer = std::move(next);
            for (std::size_t r : rows) ++uses[r];  // restore the counts for the next cache
        }
    }
    s.source = std::move(source);
}

}  // namespace tfm
