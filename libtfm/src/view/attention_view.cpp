#include "tfm/view/attention_view.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/nn/softmax.hpp"

namespace tfm {

namespace {

ViewArray array_of(ConstMat m) {
    ViewArray a{{m.rows, m.cols}, std::vector<float>(m.rows * m.cols)};
    for (std::size_t i = 0; i < m.rows; ++i) std::copy(m.data + i * m.ld, m.data + i * m.ld + m.cols, a.values.data() + i * m.cols);
    return a;
}

ViewArray array_of(const float* data, std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    return {std::move(shape), std::vector<float>(data, data + n)};
}

// A layer's input X [N,D] (the residual stream entering its first sublayer): residual_sublayer
// keeps it as inner_in in a post-norm model, as x_in (inner_in being LayerNorm(X)) in pre-norm.
ConstMat layer_input(const SublayerTrace& t, NormPlacement norm, std::size_t n, std::size_t d) {
    const std::vector<float>& x = norm == NormPlacement::Post ? t.inner_in : t.x_in;
    return mat(x.data(), n, d);
}

void check_step_layer(std::size_t step, std::size_t layers, const char* stack) {
    if (step >= layers)
        throw UsageError("step layer " + std::to_string(step) + ": the " + stack + " has " + std::to_string(layers) +
                         " layers (0 to " + std::to_string(layers - 1) + ")");
}

// One block's weights of every layer and its steps at `step`, from the traces' saved forwards.
template <class Pick>
AttentionBlock block_from(std::string id, std::string name, std::size_t queries, std::size_t keys, std::size_t tq,
                          std::size_t tk, const AttentionOptions& opt, std::size_t layers, std::size_t step, Pick pick) {
    AttentionBlock b;
    b.id = std::move(id);
    b.name = std::move(name);
    b.queries = queries;
    b.keys = keys;
    b.heads = opt.heads;
    b.key_len = tk;
    b.causal = opt.causal;
    for (std::size_t l = 0; l < layers; ++l) {
        const auto [saved, params] = pick(l);
        b.layers.push_back(array_of(saved->weights.data(), {opt.heads, tq, tk}));
        if (l != step) continue;
        const std::size_t d = saved->q.size() / tq;
        b.steps = attention_steps(l, mat(saved->q.data(), tq, d), mat(saved->k.data(), tk, d),
                                  mat(saved->v.data(), tk, d), mat(saved->ctx.data(), tq, d), saved->weights.data(), tk,
                                  opt, *params);
    }
    return b;
}

// Token embedding rows (times scale), position rows and their sum as the first layer sees it.
StackInputs stack_inputs(std::size_t list, const std::vector<std::int64_t>& ids, const EmbeddingRows& table, float scale,
                         const xt::xtensor<float, 2>& positions, const std::vector<std::size_t>& at, ConstMat sum) {
    const std::size_t t = ids.size(), d = sum.cols;
    StackInputs in;
    in.tokens = list;
    in.token.shape = in.position.shape = {t, d};
    in.token.values.resize(t * d);
    in.position.values.assign(t * d, 0.0f);
    std::vector<float> buf(d);
    for (std::size_t i = 0; i < t; ++i) {
        const float* e = table.row(std::size_t(ids[i]), buf.data());
        for (std::size_t j = 0; j < d; ++j) in.token.values[i * d + j] = e[j] * scale;
        if (at[i] != kNoPosition && at[i] < positions.shape(0))
            std::copy_n(positions.data() + at[i] * d, d, in.position.values.data() + i * d);
    }
    in.sum = array_of(sum);
    return in;
}

std::string cut_note(const char* what, std::size_t full, std::size_t cap) {
    return std::string(what) + " cut to " + std::to_string(cap) + " tokens (it has " + std::to_string(full) +
           "); --max-tokens raises the cap";
}

}  // namespace

AttentionSteps attention_steps(std::size_t layer, ConstMat q, ConstMat k, ConstMat v, ConstMat ctx, const float* weights,
                               std::size_t key_len, const AttentionOptions& opt, const MultiHeadParams& p,
                               const float* y) {
    const std::size_t tq = q.rows, tk = k.rows, d = q.cols, h = opt.heads, dk = head_size(d, h);
    AttentionSteps s;
    s.layer = layer;
    s.q = array_of(q);
    s.k = array_of(k);
    s.v = array_of(v);
    s.context = array_of(ctx);
    s.weights = array_of(weights, {h, tq, tk});
    s.projected_in = bool(p.q);
    s.projected_out = bool(p.out);
    s.scale = opt.scaled ? 1.0f / std::sqrt(float(dk)) : 1.0f;
    if (!p.additive) {  // q_h . k_h of every pair the mask lets through (masked pairs: -inf)
        s.scores.shape = {h, tq, tk};
        s.scores.values.assign(h * tq * tk, -INFINITY);
        const PrefixMask mask{std::min(key_len, tk), opt.causal};
        for (std::size_t hh = 0; hh < h; ++hh)
            for (std::size_t i = 0; i < tq; ++i) {
                const std::size_t visible = mask.visible(i, tq, tk);
                for (std::size_t j = 0; j < visible; ++j) {
                    double dot = 0;
                    for (std::size_t c = hh * dk; c < (hh + 1) * dk; ++c)
                        dot += double(q.data[i * q.ld + c]) * double(k.data[j * k.ld + c]);
                    s.scores.values[(hh * tq + i) * tk + j] = float(dot);
                }
            }
    }
    if (y) {
        s.output = array_of(y, {tq, d});
    } else if (p.out) {
        s.output.shape = {tq, d};
        s.output.values.resize(tq * d);
        linear_forward(mat(s.output.values.data(), tq, d), ctx, *p.out);
    } else {
        s.output = s.context;
    }
    return s;
}

AttentionView view_translation(const ModelDir& md, std::string_view line, const ViewOptions& opt) {
    const Model& m = md.model;
    const ModelConfig& c = m.config;
    const Tokenizer& tok = md.tokenizer;
    check_step_layer(opt.step_layer, c.encoder_layers, "encoder");
    check_step_layer(opt.step_layer, c.decoder_layers, "decoder");
    AttentionView view;
    SourceIds src_ids = source_ids(tok, line, c, opt.max_tokens);
    if (src_ids.ids.empty()) throw UsageError("the line has no tokens to show");
    if (src_ids.truncated) view.notes.push_back(cut_note("the source", src_ids.full_length, src_ids.cap));
    const std::vector<std::int64_t>& ids = src_ids.ids;
    const std::size_t s = ids.size(), d = c.d_model;

    DecodeOptions dopt = opt.decode;
    dopt.batch_size = 1;
    dopt.max_len = dopt.max_len ? std::min(dopt.max_len, opt.max_tokens) : opt.max_tokens;
    std::vector<std::vector<Hypothesis>> hyps = translate_sources(m, {ids}, dopt);
    const Hypothesis& best = hyps.at(0).at(0);
    std::vector<std::int64_t> inputs{c.decoder_start_id};
    inputs.insert(inputs.end(), best.ids.begin(), best.ids.end());
    if (!best.finished)
        view.notes.push_back("the translation stopped at its length limit of " + std::to_string(best.ids.size()) +
                             " tokens, before its end");
    const std::size_t t = inputs.size();

    view.title = tok.decode(best.ids);
    view.token_list_names = {"source", "target"};
    view.tokens.resize(2);
    for (std::int64_t id : ids) view.tokens[0].push_back(tok.source_piece(id));
    for (std::int64_t id : inputs) view.tokens[1].push_back(tok.target_piece(id));

    const TokenBatch src = make_token_batch({ids}, c.pad_id);
    EncoderWorkspace ews;
    EncoderTrace et;
    std::vector<float> memory;
    encoder_stack(memory, m, src, ews, nullptr, &et, nullptr);
    const TokenBatch tgt = make_token_batch({inputs}, c.pad_id);
    DecoderWorkspace dws;
    DecoderTrace dt;
    std::vector<float> y;
    decoder_stack(y, m, src, mat(memory.data(), s, d), tgt, dws, &dt, nullptr, nullptr);

    view.blocks.push_back(block_from("encoder", "encoder self-attention", 0, 0, s, s, encoder_attention(c),
                                     c.encoder_layers, opt.step_layer, [&](std::size_t l) {
                                         return std::pair{&et.layers[l].mha, &m.encoder[l].self_attn};
                                     }));
    view.blocks.push_back(block_from("decoder", "decoder masked self-attention", 1, 1, t, t, decoder_self_attention(c),
                                     c.decoder_layers, opt.step_layer, [&](std::size_t l) {
                                         return std::pair{&dt.layers[l].self_mha, &m.decoder[l].self_attn};
                                     }));
    view.blocks.push_back(block_from("cross", "encoder-decoder attention", 1, 0, t, s, decoder_cross_attention(c),
                                     c.decoder_layers, opt.step_layer, [&](std::size_t l) {
                                         return std::pair{&dt.layers[l].cross_mha, &m.decoder[l].cross_attn};
                                     }));

    const char* pe = c.positions == PositionKind::Learned ? "learned position embedding" : "sinusoidal positional encoding";
    const std::string scaled = c.embed_scale() == 1.0f ? "token embedding" : "token embedding × √d_model";
    view.embeddings.push_back(stack_inputs(0, ids, m.source_embedding_rows(), c.embed_scale(), m.encoder_positions,
                                           et.positions, layer_input(et.layers[0].attention, c.norm, s, d)));
    view.embeddings.push_back(stack_inputs(1, inputs, m.target_embedding_rows(), c.embed_scale(), m.decoder_positions,
                                           dt.positions, layer_input(dt.layers[0].self, c.norm, t, d)));
    for (StackInputs& in : view.embeddings) {
        in.token_label = scaled;
        in.position_label = pe;
        in.sum_label = "X = embedding + position (layer 0's input)";
    }
    if (c.norm == NormPlacement::Pre)
        view.remarks.push_back("a pre-norm model: each attention reads LayerNorm(X), which the step view's Q, K and V "
                               "are projected from");
    return view;
}

AttentionView view_bert(const BertDir& bd, std::string_view line, const ViewOptions& opt) {
    const BertModel& m = bd.model;
    const ModelConfig& c = m.config;
    check_step_layer(opt.step_layer, c.encoder_layers, "encoder");
    std::string_view a = line, second;
    const std::size_t tab = line.find('\t');
    if (tab != std::string_view::npos) {
        a = line.substr(0, tab);
        second = line.substr(tab + 1);
    }
    BertInput in = bert_input(bd.tokenizer, a, tab != std::string_view::npos ? &second : nullptr, c.max_positions,
                              opt.max_tokens);
    if (in.ids.empty()) throw UsageError("the line has no tokens to show");
    AttentionView view;
    if (in.truncated) view.notes.push_back(cut_note("the input", in.full_length, in.cap));
    const std::size_t s = in.ids.size(), d = c.d_model;
    view.title = std::string(line);
    view.token_list_names = {"input"};
    view.tokens.resize(1);
    for (std::int64_t id : in.ids) view.tokens[0].push_back(bd.tokenizer.piece(id));
    const TokenBatch src = make_token_batch({in.ids}, c.pad_id);
    EncoderWorkspace ws;
    EncoderTrace trace;
    std::vector<float> x;
    bert_forward(x, m, src, in.segments, ws, nullptr, &trace);
    view.blocks.push_back(block_from("encoder", "self-attention", 0, 0, s, s, encoder_attention(c), c.encoder_layers,
                                     opt.step_layer, [&](std::size_t l) {
                                         return std::pair{&trace.layers[l].mha, &m.layers[l].self_attn};
                                     }));
    StackInputs rows;
    rows.tokens = 0;
    rows.token.shape = rows.position.shape = {s, d};
    for (std::size_t i = 0; i < s; ++i) {
        const float* w = m.word.data() + std::size_t(in.ids[i]) * d;
        const float* p = m.position.data() + i * d;
        rows.token.values.insert(rows.token.values.end(), w, w + d);
        rows.position.values.insert(rows.position.values.end(), p, p + d);
    }
    rows.sum = array_of(layer_input(trace.layers[0].attention, NormPlacement::Post, s, d));
    rows.token_label = "word embedding";
    rows.position_label = "learned position embedding";
    rows.sum_label = "X = LayerNorm(word + position + segment) (layer 0's input)";
    view.embeddings.push_back(std::move(rows));
    return view;
}

AttentionView view_attention(ConstMat x_q, ConstMat x_k, ConstMat x_v, std::size_t key_len, const AttentionOptions& opt,
                             const MultiHeadParams& p, bool self) {
    const std::size_t tq = x_q.rows, tk = x_k.rows, d = x_q.cols, h = opt.heads;
    AttentionView view;
    view.title = "tfm-attend";
    auto labels = [](std::size_t n, const char* prefix) {
        std::vector<std::string> out;
        for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
        return out;
    };
    view.token_list_names = self ? std::vector<std::string>{"rows"} : std::vector<std::string>{"queries", "keys"};
    view.tokens.push_back(labels(tq, self ? "x" : "q"));
    if (!self) view.tokens.push_back(labels(tk, "k"));
    std::vector<float> y(tq * d), weights(h * tq * tk);
    MultiHeadWorkspace ws;
    multihead_forward(mat(y.data(), tq, d), weights.data(), x_q, x_k, x_v, PrefixMask{key_len, opt.causal}, opt, p, ws);
    // The projections the forward made (in its workspace), or its inputs where there is none.
    auto projected = [&](const std::vector<float>& buf, ConstMat x, const Linear* l) {
        return l ? mat(buf.data(), x.rows, d) : x;
    };
    const ConstMat q = projected(ws.q, x_q, p.q ? &*p.q : nullptr);
    const ConstMat k = projected(ws.k, x_k, p.k ? &*p.k : nullptr);
    const bool same_kv = p.shared_kv && x_k.data == x_v.data && x_k.ld == x_v.ld;
    const ConstMat v = same_kv ? k : projected(ws.v, x_v, p.value_proj());
    const ConstMat ctx = p.out ? mat(ws.ctx.data(), tq, d) : mat(y.data(), tq, d);
    AttentionBlock b;
    b.id = "attention";
    b.name = self ? "self-attention" : "attention";
    b.queries = 0;
    b.keys = self ? 0 : 1;
    b.heads = h;
    b.key_len = std::min(key_len, tk);
    b.causal = opt.causal;
    b.layers.push_back(array_of(weights.data(), {h, tq, tk}));
    b.steps = attention_steps(0, q, k, v, ctx, weights.data(), key_len, opt, p, y.data());  // y: what tfm-attend writes
    view.blocks.push_back(std::move(b));
    if (self) {
        StackInputs rows;
        rows.tokens = 0;
        rows.sum = array_of(x_q);
        rows.sum_label = "X (the input rows)";
        view.embeddings.push_back(std::move(rows));
    }
    return view;
}

AttentionView view_weights(const std::vector<ViewArray>& layers, std::vector<std::string> query_labels,
                           std::vector<std::string> key_labels) {
    if (layers.empty()) throw Error("no attention weights to show");
    std::vector<std::size_t> shape = layers[0].shape;
    if (shape.size() == 2) shape.insert(shape.begin(), 1);
    if (shape.size() != 3 || shape[0] == 0 || shape[1] == 0 || shape[2] == 0)
        throw Error("layer 0: attention weights must be [H,Tq,Tk] or [Tq,Tk] with no empty side");
    AttentionBlock b;
    b.id = "attention";
    b.name = "attention";
    b.heads = shape[0];
    b.key_len = shape[2];
    for (std::size_t l = 0; l < layers.size(); ++l) {
        std::vector<std::size_t> s = layers[l].shape;
        if (s.size() == 2) s.insert(s.begin(), 1);
        if (s != shape)
            throw Error("layer " + std::to_string(l) + ": weights of another shape than layer 0's [" +
                        std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "," + std::to_string(shape[2]) + "]");
        b.layers.push_back({shape, layers[l].values});
    }
    auto labels = [](std::vector<std::string> given, std::size_t n, const char* prefix, const char* what) {
        if (given.empty())
            for (std::size_t i = 0; i < n; ++i) given.push_back(prefix + std::to_string(i));
        if (given.size() != n)
            throw Error(std::string(what) + ": " + std::to_string(given.size()) + " labels for " + std::to_string(n) +
                        " tokens");
        return given;
    };
    AttentionView view;
    view.title = "attention weights";
    const bool self = shape[1] == shape[2] && query_labels == key_labels;  // one list for both sides
    view.token_list_names = self ? std::vector<std::string>{"tokens"} : std::vector<std::string>{"queries", "keys"};
    view.tokens.push_back(labels(std::move(query_labels), shape[1], self ? "t" : "q", "queries"));
    if (!self) view.tokens.push_back(labels(std::move(key_labels), shape[2], "k", "keys"));
    b.keys = self ? 0 : 1;
    view.blocks.push_back(std::move(b));
    return view;
}

}  // namespace tfm
