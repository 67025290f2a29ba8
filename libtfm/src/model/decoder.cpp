#include "tfm/model/decoder.hpp"

#include "tfm/base/packed_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"
#include "stack.hpp"
#include "tfm/nn/embedding.hpp"

namespace tfm {

AttentionOptions decoder_self_attention(const ModelConfig& c) {
    AttentionOptions opt;
    opt.heads = c.decoder_heads;
    opt.causal = true;
    return opt;
}

AttentionOptions decoder_cross_attention(const ModelConfig& c) {
    AttentionOptions opt;
    opt.heads = c.decoder_heads;
    return opt;
}

void output_projection(Mat y, ConstMat x, const Model& m) {
    if (m.output_packed) {
        m.output_packed->multiply(y, x);
        return;
    }
    const auto& w = m.output_weight();
    gemm(y, x, Op::N, mat(w.data(), w.shape(0), w.shape(1)), Op::T);
}

void output_logits(Mat y, ConstMat x, const Model& m) {
    if (m.output_packed) {  // the bias added by the packed product itself
        m.output_packed->multiply(y, x, m.final_logits_bias.data());
        return;
    }
    output_projection(y, x, m);
    const std::size_t v = y.cols;
    const float* bias = m.final_logits_bias.data();
    parallel_for(y.rows, [&](std::size_t i) {
        float* row = y.data + i * y.ld;
        for (std::size_t j = 0; j < v; ++j) row[j] += bias[j];
    });
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

// Every decoder layer, for the full sequence and for one step alike: self-attention and
// encoder-decoder attention (by the caller's functions, which also get the layer's trace or
// null), feed-forward, each as a residual sublayer; then the final LayerNorm of pre-norm models.
template <class SelfAttention, class CrossAttention>
void decoder_layers(std::vector<float>& x, std::size_t n, const Model& m, DecoderWorkspace& ws, DecoderTrace* trace,
                    DropoutStream* dropout, SelfAttention&& self, CrossAttention&& cross) {
    const ModelConfig& c = m.config;
    if (trace) trace->layers.resize(m.decoder.size());
    for (std::size_t l = 0; l < m.decoder.size(); ++l) {
        const DecoderLayer& layer = m.decoder[l];
        DecoderLayerTrace* t = trace ? &trace->layers[l] : nullptr;
        stack::next_attention_mask(dropout, t ? &t->self_mha : nullptr);
        residual_sublayer(x, n, layer.self_attn_ln, c.norm, stack::next_mask(dropout), ws.sub, t ? &t->self : nullptr,
                          [&](Mat out, ConstMat in) { self(l, out, in, t ? &t->self_mha : nullptr); });
        stack::next_attention_mask(dropout, t ? &t->cross_mha : nullptr);
        residual_sublayer(x, n, layer.cross_attn_ln, c.norm, stack::next_mask(dropout), ws.sub, t ? &t->cross : nullptr,
                          [&](Mat out, ConstMat in) { cross(l, out, in, t ? &t->cross_mha : nullptr); });
        const DropoutMask hidden_mask = stack::next_activation_mask(dropout);
        if (t) t->ffn_dropout = hidden_mask;
        residual_sublayer(x, n, layer.final_ln, c.norm, stack::next_mask(dropout), ws.sub, t ? &t->ffn : nullptr,
                          [&](Mat out, ConstMat in) {
                              feedforward_forward(out, in, layer.ffn, c.activation, ws.hidden, t ? &t->ffn_kept : nullptr,
                                                  hidden_mask);
                          });
    }
    if (m.decoder_final_ln) stack::final_norm(x, n, *m.decoder_final_ln, trace ? &trace->final_in : nullptr);
}

void check_memory(const Model& m, std::size_t rows, std::size_t cols, const TokenBatch& src) {
    if (rows != src.batch * src.len || cols != m.config.d_model)
        throw Error("decoder: memory [" + std::to_string(rows) + "," + std::to_string(cols) + "] does not fit " +
                    std::to_string(src.batch) + " sources of length " + std::to_string(src.len) +
                    " and D=" + std::to_string(m.config.d_model));
}

}  // namespace

void decoder_stack(std::vector<float>& y, const Model& m, const TokenBatch& src, ConstMat memory, const TokenBatch& tgt,
                   DecoderWorkspace& ws, DecoderTrace* trace, DropoutStream* dropout, CrossAttentionCapture* capture) {
    check_memory(m, memory.rows, memory.cols, src);
    if (tgt.batch != src.batch) throw Error("decoder: " + std::to_string(tgt.batch) + " targets for " +
                                            std::to_string(src.batch) + " sources");
    const ModelConfig& c = m.config;
    const std::size_t n = tgt.batch * tgt.len;
    stack::embed_batch(y, tgt, c, m.target_embedding_rows(), m.decoder_positions, trace, dropout);
    const std::vector<SequenceSpan> self = self_spans(tgt, true), cross = cross_spans(tgt, src);
    const AttentionOptions self_opt = decoder_self_attention(c), cross_opt = decoder_cross_attention(c);
    decoder_layers(
        y, n, m, ws, trace, dropout,
        [&](std::size_t l, Mat out, ConstMat in, MultiHeadSaved* keep) {
            multihead_forward(out, in, in, in, self, self_opt, m.decoder[l].self_attn, ws.attn, keep);
        },
        [&](std::size_t l, Mat out, ConstMat in, MultiHeadSaved* keep) {
            if (!capture || capture->layer != l) {
                multihead_forward(out, in, memory, memory, cross, cross_opt, m.decoder[l].cross_attn, ws.attn, keep);
                return;
            }
            const std::size_t per = cross_opt.heads * tgt.len * src.len;  // [H,T,S] per sequence
            capture->weights.assign(tgt.batch * per, 0.0f);
            std::vector<SequenceSpan> spans = cross;
            for (std::size_t i = 0; i < spans.size(); ++i) spans[i].weights = capture->weights.data() + i * per;
            multihead_forward(out, in, memory, memory, spans, cross_opt, m.decoder[l].cross_attn, ws.attn, keep);
        });
}

void decoder_stack_backward(Mat dy, Mat dmem, const Model& m, const TokenBatch& src, ConstMat memory,
                            const TokenBatch& tgt, const DecoderTrace& trace, Model& grads, StackBackwardBuffers& buf) {
    check_memory(m, memory.rows, memory.cols, src);
    check_memory(m, dmem.rows, dmem.cols, src);
    const ModelConfig& c = m.config;
    if (m.decoder_final_ln) stack::final_norm_backward(dy, *m.decoder_final_ln, *grads.decoder_final_ln, trace.final_in);
    const AttentionOptions self_opt = decoder_self_attention(c), cross_opt = decoder_cross_attention(c);
    for (std::size_t l = m.decoder.size(); l-- > 0;) {
        const DecoderLayer& L = m.decoder[l];
        DecoderLayer& G = grads.decoder[l];
        const DecoderLayerTrace& t = trace.layers[l];
        stack::feedforward_sublayer_backward(dy, L, G, t, c, buf);
        residual_sublayer_backward(dy, L.cross_attn_ln, G.cross_attn_ln, c.norm, t.cross, buf.sub,
                                   [&](Mat din, ConstMat dout, ConstMat in) {
                                       multihead_backward(din, dmem, dmem, G.cross_attn, dout, in, memory, memory,
                                                          t.cross_mha, cross_opt, L.cross_attn);
                                   });
        stack::self_attention_sublayer_backward(dy, L, G, t.self, t.self_mha, self_opt, c.norm, buf);
    }
    const bool learned = c.positions == PositionKind::Learned;
    stack::embedding_backward(dy, tgt, trace.positions, trace.embedding, c.embed_scale(), grads.shared,
                              learned ? &grads.decoder_positions : nullptr);
}

void output_projection_backward(Mat dx, ConstMat dlogits, ConstMat x, const Model& m, Model& grads) {
    const std::size_t v = m.config.target_vocab(), d = m.config.d_model;
    const auto& w = m.output_weight();
    auto& gw = m.config.tie_word_embeddings ? grads.shared : grads.lm_head;
    gemm(dx, dlogits, Op::N, mat(w.data(), v, d), Op::N);
    gemm(mat(gw.data(), v, d), dlogits, Op::T, x, Op::N, 1.0f, 1.0f);
}

void decoder_forward(xt::xtensor<float, 2>& logits, const Model& m, const TokenBatch& src,
                     const xt::xtensor<float, 2>& memory, const TokenBatch& tgt, DecoderWorkspace& ws) {
    check_memory(m, memory.shape(0), memory.shape(1), src);
    const std::size_t n = tgt.batch * tgt.len, d = m.config.d_model, v = m.config.target_vocab();
    decoder_stack(ws.x, m, src, mat(memory.data(), memory.shape(0), d), tgt, ws);
    logits = xt::xtensor<float, 2>::from_shape({n, v});
    output_logits(mat(logits.data(), n, v), mat(ws.x.data(), n, d), m);
}

struct DecoderState::Impl {
    const Model& m;
    std::size_t steps = 0, cap;
    std::vector<std::size_t> source;        // row -> source sentence
    std::vector<ProjectedMemory> memory;    // per layer: the memory's keys and values
    std::vector<KeyValueCache> cache;       // per layer: self-attention keys and values so far
    AttentionOptions self_opt, cross_opt;
    DecoderWorkspace ws;
    std::vector<std::size_t> source_len;    // per source: its tokens
    std::optional<std::size_t> attn_layer;  // keep_attention's layer, when set
    std::size_t attn_heads = 0, memory_len = 0;
    std::vector<float> attn;                // [N,H,S] the last step's kept attention
    std::vector<std::int64_t> shortlist;    // restrict_output's ids (empty: all)
    xt::xtensor<float, 2> short_w;          // [K,D] their output rows (unpacked models)
    std::unique_ptr<PackedMatrix> short_packed;  // the same in the model's compute type
    std::vector<float> short_bias, short_y;  // [K], [N,K]

    Impl(const Model& model, std::size_t max_steps)
        : m(model), cap(max_steps), self_opt(decoder_self_attention(model.config)),
          cross_opt(decoder_cross_attention(model.config)) {}
};

DecoderState::DecoderState(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src,
                           std::size_t max_steps)
    : impl_(std::make_unique<Impl>(m, max_steps)) {
    check_memory(m, memory.shape(0), memory.shape(1), src);
    Impl& s = *impl_;
    const std::size_t d = m.config.d_model;
    for (std::size_t i = 0; i < src.batch; ++i) s.source.push_back(i);
    s.source_len = src.lengths;
    s.memory_len = src.len;
    ConstMat mem = mat(memory.data(), src.batch * src.len, d);
    for (const DecoderLayer& layer : m.decoder) {  // the memory's keys and values, once
        s.memory.push_back(multihead_project_memory(mem, src.lengths, layer.cross_attn));
        s.cache.emplace_back(src.batch, max_steps, d);
    }
}

DecoderState::~DecoderState() = default;

std::size_t DecoderState::vocab() const { return impl_->m.config.target_vocab(); }

void DecoderState::step(const std::vector<std::int64_t>& tokens, Mat logprobs) {
    Impl& s = *impl_;
    const Model& m = s.m;
    const ModelConfig& c = m.config;
    const std::size_t n = s.source.size(), d = c.d_model, t = s.steps;
    if (tokens.size() != n || logprobs.rows != n || logprobs.cols != c.target_vocab())
        throw Error("decoder step: " + std::to_string(tokens.size()) + " tokens for " + std::to_string(n) + " rows");
    if (t >= s.cap) throw Error("decoder step: more than the " + std::to_string(s.cap) + " steps planned");
    std::vector<float>& x = s.ws.x;
    x.resize(n * d);
    const std::vector<std::size_t> positions(n, t);
    embed(mat(x.data(), n, d), tokens.data(), positions.data(), m.target_embedding_rows(), m.decoder_positions, c.embed_scale());
    decoder_layers(
        x, n, m, s.ws, nullptr, nullptr,
        [&](std::size_t l, Mat out, ConstMat in, MultiHeadSaved*) {
            multihead_step(out, in, s.cache[l], s.self_opt, m.decoder[l].self_attn, s.ws.attn);
        },
        [&](std::size_t l, Mat out, ConstMat in, MultiHeadSaved*) {
            float* weights = nullptr;
            if (s.attn_layer == l) {
                s.attn.resize(n * c.decoder_heads * s.memory_len);
                weights = s.attn.data();
            }
            multihead_attend_memory(out, in, s.memory[l], s.source, s.cross_opt, m.decoder[l].cross_attn, s.ws.attn,
                                    weights);
        });
    if (s.shortlist.empty()) {
        output_logits(logprobs, mat(x.data(), n, d), m);
        log_softmax_rows(logprobs, c.pad_id);
    } else {
        const std::size_t k = s.shortlist.size();
        s.short_y.resize(n * k);
        Mat y = mat(s.short_y.data(), n, k);
        if (s.short_packed) {
            s.short_packed->multiply(y, mat(x.data(), n, d), s.short_bias.data());
        } else {
            gemm(y, mat(x.data(), n, d), Op::N, mat(s.short_w.data(), k, d), Op::T);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < k; ++j) y.data[i * k + j] += s.short_bias[j];
        }
        const auto pad = std::lower_bound(s.shortlist.begin(), s.shortlist.end(), c.pad_id);
        log_softmax_rows(y, pad != s.shortlist.end() && *pad == c.pad_id ? pad - s.shortlist.begin() : -1);
        const float never = -std::numeric_limits<float>::infinity();
        parallel_for(n, [&](std::size_t i) {
            float* row = logprobs.data + i * logprobs.ld;
            std::fill(row, row + logprobs.cols, never);
            for (std::size_t j = 0; j < k; ++j) row[s.shortlist[j]] = y.data[i * k + j];
        });
    }
    ++s.steps;
}

void DecoderState::restrict_output(std::vector<std::int64_t> ids) {
    Impl& s = *impl_;
    const Model& m = s.m;
    const std::size_t v = m.config.target_vocab(), d = m.config.d_model;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || std::size_t(ids[i]) >= v || (i && ids[i] <= ids[i - 1]))
            throw Error("restrict_output: ids must be distinct, sorted and inside the vocabulary of " + std::to_string(v));
    s.shortlist = std::move(ids);
    s.short_packed.reset();
    if (s.shortlist.empty() || s.shortlist.size() == v) {  // all of it: the full product is the same and faster
        s.shortlist.clear();
        return;
    }
    const std::size_t k = s.shortlist.size();
    xt::xtensor<float, 2> w = xt::xtensor<float, 2>::from_shape({k, d});
    s.short_bias.resize(k);
    for (std::size_t j = 0; j < k; ++j) {
        const auto id = std::size_t(s.shortlist[j]);
        if (m.output_packed) m.output_packed->row(id, w.data() + j * d);
        else std::copy(m.output_weight().data() + id * d, m.output_weight().data() + (id + 1) * d, w.data() + j * d);
        s.short_bias[j] = m.final_logits_bias.size() ? m.final_logits_bias.data()[id] : 0.0f;
    }
    if (m.output_packed) s.short_packed = std::make_unique<PackedMatrix>(mat(w.data(), k, d), m.output_packed->type());
    else s.short_w = std::move(w);
}

void DecoderState::select(const std::vector<std::size_t>& rows) {
    Impl& s = *impl_;
    const std::size_t n = s.source.size();
    std::vector<std::size_t> source;
    for (std::size_t r : rows) {
        if (r >= n) throw Error("decoder select: row " + std::to_string(r) + " of " + std::to_string(n));
        source.push_back(s.source[r]);
    }
    for (KeyValueCache& c : s.cache) c.select(rows);
    s.source = std::move(source);
    s.attn.clear();  // it was the old rows'
}

void DecoderState::keep_attention(std::size_t layer, std::size_t heads) {
    Impl& s = *impl_;
    const std::size_t layers = s.m.decoder.size(), h = s.m.config.decoder_heads;
    if (layer >= layers)
        throw UsageError("alignment layer " + std::to_string(layer) + " does not exist: the decoder has " +
                         std::to_string(layers) + " layers");
    if (heads > h)
        throw UsageError("alignment heads " + std::to_string(heads) + ": the decoder's attention has " +
                         std::to_string(h) + " heads");
    s.attn_layer = layer;
    s.attn_heads = heads == 0 ? h : heads;
}

bool DecoderState::keeps_attention() const { return impl_->attn_layer.has_value(); }

void DecoderState::attention(std::size_t row, std::vector<float>& out) const {
    const Impl& s = *impl_;
    const std::size_t h = s.m.config.decoder_heads, len = s.memory_len;
    if (!s.attn_layer || row >= s.source.size() || s.attn.size() != s.source.size() * h * len)
        throw Error("decoder: no attention kept for row " + std::to_string(row) + " of the last step");
    mean_of_heads(out, s.attn.data() + row * h * len, s.attn_heads, len, s.source_len[s.source[row]]);  // of [H,S]
}

}  // namespace tfm
