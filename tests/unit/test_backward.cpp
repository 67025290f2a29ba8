// Every backward pass against central finite differences of its forward. The forwards run
// in float32, so the check uses a smooth scalar loss L = sum(w o y) with fixed random w,
// steps of 1e-2 and a tolerance of 2% relative (plus a small absolute term): wrong
// gradients (a missing term, a transpose) miss by far more.
#include <functional>

#include "helpers.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/nn/feedforward.hpp"
#include "tfm/nn/layernorm.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/train/training.hpp"

using namespace tfm;
using tfm_test::random_vec;

namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
    return s;
}

// Compares analytic[i] with (L(p_i + h) - L(p_i - h)) / 2h at every index (n is small).
void check_grad(const std::string& what, const std::function<double()>& loss, float* param, const float* analytic,
                std::size_t n, double h = 1e-2) {
    for (std::size_t i = 0; i < n; ++i) {
        const float keep = param[i];
        param[i] = keep + float(h);
        const double up = loss();
        param[i] = keep - float(h);
        const double down = loss();
        param[i] = keep;
        const double numeric = (up - down) / (2 * h);
        const bool close = std::fabs(numeric - analytic[i]) <= 2e-2 * std::fabs(numeric) + 2e-3;
        CHECK_MESSAGE(close, what << "[" << i << "]: analytic " << analytic[i] << ", numeric " << numeric);
    }
}

// The tiny model of the whole-model checks: 2+2 layers, D=8, 2 heads, F=12, V=23, 16 positions.
ModelConfig tiny_model_config() {
    ModelConfig c = tfm_test::small_config(23, 8, 2, 12, 2);
    c.max_positions = 16;
    return c;
}

// Two pairs, 6 target tokens; the ids stay below 19 (a separate target vocabulary's size).
TrainBatch tiny_batch(const ModelConfig& c) { return make_train_batch({{5, 6, 7, 1}, {8, 9, 1}}, {{10, 11, 12}, {13}}, c); }

// check_grad at the first, a middle and the last entry of every parameter tensor of m against
// the same tensor of g; in embedding tables, entries of row 5 (an id the batch uses).
void check_every_tensor(Model& m, Model& g, std::size_t d, const std::function<double()>& loss) {
    std::vector<std::string> names;
    std::vector<std::pair<float*, std::size_t>> params;
    std::vector<const float*> grads;
    visit_parameters(m, [&](const std::string& name, float* p, std::size_t n) {
        names.push_back(name);
        params.push_back({p, n});
    });
    visit_parameters(g, [&](const std::string&, float* p, std::size_t) { grads.push_back(p); });
    REQUIRE(grads.size() == params.size());
    for (std::size_t t = 0; t < params.size(); ++t) {
        CAPTURE(names[t]);
        const std::size_t n = params[t].second;
        for (std::size_t i : {std::size_t(0), n / 2 + 1, n - 1}) {
            if (names[t] == "model.shared.weight" || names[t].find("embed_tokens") != std::string::npos)
                i = 5 * d + i % d;  // a row in use
            check_grad(names[t], loss, params[t].first + i, grads[t] + i, 1, 2e-3);
        }
    }
}

}  // namespace

TEST_CASE("backward: linear") {
    const std::size_t t = 3, in = 4, out = 5;
    Rng rng(1);
    Linear l = random_linear(in, out, rng);
    l.bias = xt::xtensor<float, 1>::from_shape({out});
    for (float& b : l.bias) b = rng.uniform(-1, 1);
    auto x = random_vec(t * in, 2), w = random_vec(t * out, 3);
    auto loss = [&] {
        std::vector<float> y(t * out);
        linear_forward(mat(y.data(), t, out), mat(x.data(), t, in), l);
        return dot(y, w);
    };
    Linear g = zeros_like(l);
    std::vector<float> dx(t * in);
    linear_backward(mat(dx.data(), t, in), g, mat(w.data(), t, out), mat(x.data(), t, in), l);
    check_grad("dx", loss, x.data(), dx.data(), dx.size());
    check_grad("dW", loss, l.weight.data(), g.weight.data(), g.weight.size());
    check_grad("db", loss, l.bias.data(), g.bias.data(), g.bias.size());
}

TEST_CASE("backward: layer norm") {
    const std::size_t n = 3, d = 6;
    LayerNorm ln{xt::xtensor<float, 1>::from_shape({d}), xt::xtensor<float, 1>::from_shape({d}), 1e-5f};
    auto gv = random_vec(d, 4), bv = random_vec(d, 5);
    std::copy(gv.begin(), gv.end(), ln.gamma.begin());
    std::copy(bv.begin(), bv.end(), ln.beta.begin());
    auto x = random_vec(n * d, 6, 2.0f), w = random_vec(n * d, 7);
    auto loss = [&] {
        std::vector<float> y(n * d);
        layernorm_forward(mat(y.data(), n, d), mat(x.data(), n, d), ln);
        return dot(y, w);
    };
    LayerNorm g = identity_layernorm(d, 1e-5f);
    g.gamma.fill(0.0f);
    std::vector<float> dx(n * d);
    layernorm_backward(mat(dx.data(), n, d), g, mat(w.data(), n, d), mat(x.data(), n, d), ln);
    check_grad("dx", loss, x.data(), dx.data(), dx.size());
    check_grad("dgamma", loss, ln.gamma.data(), g.gamma.data(), d);
    check_grad("dbeta", loss, ln.beta.data(), g.beta.data(), d);
}

TEST_CASE("backward: feed-forward with each activation") {
    for (Activation a : {Activation::Relu, Activation::Gelu, Activation::Swish}) {
        CAPTURE(activation_name(a));
        const std::size_t n = 3, d = 4, f = 6;
        Rng rng(8);
        FeedForward ff = random_feedforward(d, f, rng);
        for (float& b : ff.fc1.bias) b = rng.uniform(-0.5f, 0.5f);
        auto x = random_vec(n * d, 9), w = random_vec(n * d, 10);
        std::vector<float> hidden;
        auto loss = [&] {
            std::vector<float> y(n * d);
            feedforward_forward(mat(y.data(), n, d), mat(x.data(), n, d), ff, a, hidden);
            return dot(y, w);
        };
        std::vector<float> pre, dx(n * d);
        std::vector<float> y(n * d);
        feedforward_forward(mat(y.data(), n, d), mat(x.data(), n, d), ff, a, hidden, &pre);
        FeedForward g{zeros_like(ff.fc1), zeros_like(ff.fc2)};
        feedforward_backward(mat(dx.data(), n, d), g, mat(w.data(), n, d), mat(x.data(), n, d), pre, ff, a, hidden);
        check_grad("dx", loss, x.data(), dx.data(), dx.size(), 1e-3);
        check_grad("dW1", loss, ff.fc1.weight.data(), g.fc1.weight.data(), g.fc1.weight.size(), 1e-3);
        check_grad("db1", loss, ff.fc1.bias.data(), g.fc1.bias.data(), f, 1e-3);
        check_grad("dW2", loss, ff.fc2.weight.data(), g.fc2.weight.data(), g.fc2.weight.size(), 1e-3);
    }
}

TEST_CASE("backward: feed-forward with dropout on its hidden layer") {
    for (Activation a : {Activation::Relu, Activation::Gelu}) {
        CAPTURE(activation_name(a));
        const std::size_t n = 3, d = 4, f = 6;
        Rng rng(8);
        FeedForward ff = random_feedforward(d, f, rng);
        for (float& b : ff.fc1.bias) b = rng.uniform(-0.5f, 0.5f);
        auto x = random_vec(n * d, 9), w = random_vec(n * d, 10);
        const DropoutMask mask{dropout_key(5, 0), 0.4f};
        std::vector<float> hidden, pre, dx(n * d), y(n * d), plain(n * d);
        auto loss = [&] {
            std::vector<float> z(n * d);
            feedforward_forward(mat(z.data(), n, d), mat(x.data(), n, d), ff, a, hidden, nullptr, mask);
            return dot(z, w);
        };
        feedforward_forward(mat(y.data(), n, d), mat(x.data(), n, d), ff, a, hidden, &pre, mask);
        feedforward_forward(mat(plain.data(), n, d), mat(x.data(), n, d), ff, a, hidden);
        CHECK(dot(y, w) == doctest::Approx(loss()).epsilon(1e-6));
        CHECK(dot(y, w) != doctest::Approx(dot(plain, w)));
        FeedForward g{zeros_like(ff.fc1), zeros_like(ff.fc2)};
        feedforward_backward(mat(dx.data(), n, d), g, mat(w.data(), n, d), mat(x.data(), n, d), pre, ff, a, hidden,
                             mask);
        check_grad("dx", loss, x.data(), dx.data(), dx.size(), 1e-3);
        check_grad("dW1", loss, ff.fc1.weight.data(), g.fc1.weight.data(), g.fc1.weight.size(), 1e-3);
        check_grad("dW2", loss, ff.fc2.weight.data(), g.fc2.weight.data(), g.fc2.weight.size(), 1e-3);
    }
}

TEST_CASE("backward: multi-head attention with padding and causal masks, self and cross") {
    const std::size_t d = 8, heads = 2;
    for (bool causal : {false, true}) for (float drop : {0.0f, 0.3f}) {
        CAPTURE(causal);
        CAPTURE(drop);  // dropout on the attention probabilities
        MultiHeadConfig cfg;
        cfg.d = d;
        cfg.attention.heads = heads;
        MultiHeadParams p = random_multihead(cfg, 11);
        Rng rng(12);
        for (auto* l : {&*p.q, &*p.k, &*p.v, &*p.out})
            for (float& b : l->bias) b = rng.uniform(-0.3f, 0.3f);
        AttentionOptions opt = cfg.attention;
        opt.causal = causal;
        // Two sequences of queries (3 and 2 rows) over memories of 4 (2 valid) and 3 keys.
        const std::size_t nq = 5, nk = 7;
        std::vector<SequenceSpan> spans = {{0, 3, 0, 4, 2, nullptr}, {3, 2, 4, 3, 3, nullptr}};
        if (causal) spans = {{0, 3, 0, 3, 3, nullptr}, {3, 2, 3, 2, 2, nullptr}};
        const std::size_t nkv = causal ? nq : nk;
        auto xq = random_vec(nq * d, 13), xm = random_vec(nkv * d, 14), w = random_vec(nq * d, 15);
        auto run = [&](MultiHeadSaved& saved) {
            std::vector<float> y(nq * d);
            ConstMat q = mat(xq.data(), nq, d), m = causal ? q : mat(xm.data(), nkv, d);
            saved.dropout = DropoutMask{dropout_key(3, 1), drop};
            multihead_forward_train(mat(y.data(), nq, d), q, m, m, spans, opt, p, saved);
            return dot(y, w);
        };
        MultiHeadSaved saved;
        auto loss = [&] {
            MultiHeadSaved s;
            return run(s);
        };
        run(saved);
        MultiHeadParams g;
        g.q = zeros_like(*p.q), g.k = zeros_like(*p.k), g.v = zeros_like(*p.v), g.out = zeros_like(*p.out);
        std::vector<float> dxq(nq * d, 0.0f), dxm(nkv * d, 0.0f);
        ConstMat q = mat(xq.data(), nq, d), m = causal ? q : mat(xm.data(), nkv, d);
        Mat dq = mat(dxq.data(), nq, d), dm = causal ? dq : mat(dxm.data(), nkv, d);
        multihead_backward(dq, dm, dm, g, mat(w.data(), nq, d), q, m, m, saved, opt, p);
        check_grad("dx_q", loss, xq.data(), dxq.data(), dxq.size());
        if (!causal) check_grad("dmemory", loss, xm.data(), dxm.data(), dxm.size());
        check_grad("dWq", loss, p.q->weight.data(), g.q->weight.data(), d * d);
        check_grad("dWk", loss, p.k->weight.data(), g.k->weight.data(), d * d);
        check_grad("dbv", loss, p.v->bias.data(), g.v->bias.data(), d);
        check_grad("dWo", loss, p.out->weight.data(), g.out->weight.data(), d * d);
    }
}

TEST_CASE("backward: multi-head attention with keys and values from different inputs, and with shared K=V") {
    // The gradients of the projections are fused into one product where the inputs are one
    // matrix; here they are not (different inputs), or K and V share one projection.
    const std::size_t d = 8, heads = 2, nq = 3, nk = 4;
    for (bool shared : {false, true}) {
        CAPTURE(shared);
        MultiHeadConfig cfg;
        cfg.d = d;
        cfg.attention.heads = heads;
        cfg.shared_kv = shared;
        MultiHeadParams p = random_multihead(cfg, 21);
        const std::vector<SequenceSpan> spans = {{0, nq, 0, nk, 3, nullptr}};
        auto xq = random_vec(nq * d, 22), xk = random_vec(nk * d, 23), xv = random_vec(nk * d, 24),
             w = random_vec(nq * d, 25);
        auto run = [&](MultiHeadSaved& saved) {
            std::vector<float> y(nq * d);
            multihead_forward_train(mat(y.data(), nq, d), mat(xq.data(), nq, d), mat(xk.data(), nk, d),
                                    mat(xv.data(), nk, d), spans, cfg.attention, p, saved);
            return dot(y, w);
        };
        MultiHeadSaved saved;
        run(saved);
        auto loss = [&] {
            MultiHeadSaved s;
            return run(s);
        };
        MultiHeadParams g;
        g.shared_kv = shared;
        g.q = zeros_like(*p.q), g.k = zeros_like(*p.k), g.out = zeros_like(*p.out);
        if (!shared) g.v = zeros_like(*p.v);
        std::vector<float> dxq(nq * d, 0.0f), dxk(nk * d, 0.0f), dxv(nk * d, 0.0f);
        multihead_backward(mat(dxq.data(), nq, d), mat(dxk.data(), nk, d), mat(dxv.data(), nk, d), g,
                           mat(w.data(), nq, d), mat(xq.data(), nq, d), mat(xk.data(), nk, d), mat(xv.data(), nk, d),
                           saved, cfg.attention, p);
        check_grad("dx_q", loss, xq.data(), dxq.data(), dxq.size());
        check_grad("dx_k", loss, xk.data(), dxk.data(), dxk.size());
        check_grad("dx_v", loss, xv.data(), dxv.data(), dxv.size());
        check_grad("dWk", loss, p.k->weight.data(), g.k->weight.data(), d * d);
        if (!shared) check_grad("dWv", loss, p.v->weight.data(), g.v->weight.data(), d * d);
    }
}

TEST_CASE("backward: the whole model (post- and pre-norm, tied and untied, learned positions, separate vocabularies)") {
    struct Variant {
        NormPlacement norm;
        bool tied;
        PositionKind pos;
        Activation act;
        bool shared;
    };
    for (const Variant& vr :
         {Variant{NormPlacement::Post, true, PositionKind::SinusoidalInterleaved, Activation::Relu, true},
          Variant{NormPlacement::Pre, false, PositionKind::Learned, Activation::Swish, true},
          Variant{NormPlacement::Post, true, PositionKind::SinusoidalHalves, Activation::Gelu, false}}) {
        ModelConfig c = tiny_model_config();
        c.norm = vr.norm;
        c.tie_word_embeddings = vr.tied;
        c.positions = vr.pos;
        c.activation = vr.act;
        c.share_embeddings = vr.shared;
        if (!vr.shared) c.decoder_vocab_size = 19;  // source ids < 23, target ids < 19
        Model m = random_model(c, 5);
        CHECK(m.source_embedding().shape(0) == 23);
        CHECK(m.output_weight().shape(0) == (vr.shared ? 23 : 19));
        // Biases and LayerNorms away from their initial 0/1 so that every term shows.
        Rng rng(6);
        visit_parameters(m, [&](const std::string& name, float* p, std::size_t n) {
            if (name.find("bias") != std::string::npos || name.find("layer_norm") != std::string::npos)
                for (std::size_t i = 0; i < n; ++i) p[i] += rng.uniform(-0.2f, 0.2f);
        });
        TrainBatch batch = tiny_batch(c);
        CHECK(batch.target_tokens == 6);
        TrainOptions opt;
        opt.dropout = 0.0f;
        Model g = zeros_like(m);
        TrainingWorkspace ws;
        LossStats st = forward_backward(m, batch, g, opt, ws);
        CHECK(st.tokens == 6);
        CHECK(st.smoothed > st.nll * 0.5);
        auto loss = [&] { return evaluate_loss(m, batch, opt.label_smoothing, ws).smoothed; };
        CHECK(loss() == doctest::Approx(st.smoothed).epsilon(1e-6));
        check_every_tensor(m, g, c.d_model, loss);
    }
}

// Each stack on its own (model/encoder.hpp, model/decoder.hpp), with L = sum(w o y) over its
// output: every parameter tensor, and for the decoder d L / d memory at every entry.
TEST_CASE("backward: the encoder stack and the decoder stack on their own, and the decoder's gradient of the memory") {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        CAPTURE(norm == NormPlacement::Pre);
        ModelConfig c = tiny_model_config();
        c.norm = norm;  // pre-norm: final LayerNorms after each stack
        c.positions = norm == NormPlacement::Pre ? PositionKind::Learned : PositionKind::SinusoidalInterleaved;
        c.activation = Activation::Gelu;
        Model m = random_model(c, 11);
        Rng rng(12);
        visit_parameters(m, [&](const std::string& name, float* p, std::size_t n) {
            if (name.find("bias") != std::string::npos || name.find("layer_norm") != std::string::npos)
                for (std::size_t i = 0; i < n; ++i) p[i] += rng.uniform(-0.2f, 0.2f);
        });
        const std::size_t d = c.d_model;
        // Ids below 19; both sides use id 5 (the embedding row check_every_tensor probes).
        const TokenBatch src = make_token_batch({{5, 6, 7, 1}, {8, 9, 1}}, c.pad_id);
        const TokenBatch tgt = make_token_batch({{c.decoder_start_id, 5, 11}, {c.decoder_start_id}}, c.pad_id);
        const std::size_t ns = src.batch * src.len, nt = tgt.batch * tgt.len;
        StackBackwardBuffers buf;

        const std::vector<float> we = random_vec(ns * d, 13);
        EncoderWorkspace ews;
        std::vector<float> x;
        auto encoder_loss = [&] {
            encoder_stack(x, m, src, ews);
            return dot(x, we);
        };
        EncoderTrace etrace;
        encoder_stack(x, m, src, ews, nullptr, &etrace);
        CHECK(etrace.positions == batch_positions(src));
        std::vector<float> dx = we;
        Model ge = zeros_like(m);
        encoder_stack_backward(mat(dx.data(), ns, d), m, src, etrace, ge, buf);
        check_every_tensor(m, ge, d, encoder_loss);

        std::vector<float> memory = random_vec(ns * d, 14);
        const std::vector<float> wd = random_vec(nt * d, 15);
        DecoderWorkspace dws;
        std::vector<float> y;
        auto decoder_loss = [&] {
            decoder_stack(y, m, src, mat(memory.data(), ns, d), tgt, dws);
            return dot(y, wd);
        };
        DecoderTrace dtrace;
        decoder_stack(y, m, src, mat(memory.data(), ns, d), tgt, dws, &dtrace);
        std::vector<float> dy = wd, dmem(ns * d, 0.0f);
        Model gd = zeros_like(m);
        decoder_stack_backward(mat(dy.data(), nt, d), mat(dmem.data(), ns, d), m, src, mat(memory.data(), ns, d), tgt,
                               dtrace, gd, buf);
        check_every_tensor(m, gd, d, decoder_loss);
        check_grad("memory", decoder_loss, memory.data(), dmem.data(), ns * d, 2e-3);
        // Source 1 has 3 tokens of 4: its padding row is never attended to.
        for (std::size_t j = 0; j < d; ++j) CHECK(dmem[(src.len + 3) * d + j] == 0.0f);
    }
}

TEST_CASE("backward: label-smoothed cross-entropy matches its definition and its gradient") {
    const std::size_t n = 3, v = 5;
    auto logits = random_vec(n * v, 20, 2.0f);
    std::vector<std::int64_t> labels = {2, 0, 4};  // 0 is pad: ignored
    std::vector<float> g(n * v);
    LossStats st = smoothed_cross_entropy(mat(logits.data(), n, v), labels, 0, 0.1f, g.data());
    CHECK(st.tokens == 2);
    double nll = 0, sm = 0;
    for (std::size_t r : {std::size_t(0), std::size_t(2)}) {
        double lse = 0;
        for (std::size_t j = 0; j < v; ++j) lse += std::exp(double(logits[r * v + j]));
        lse = std::log(lse);
        nll += lse - logits[r * v + std::size_t(labels[r])];
        double s = 0;
        for (std::size_t j = 0; j < v; ++j) s += (lse - logits[r * v + j]) * (0.1 / v + (j == std::size_t(labels[r]) ? 0.9 : 0.0));
        sm += s;
    }
    CHECK(st.nll == doctest::Approx(nll).epsilon(1e-6));
    CHECK(st.smoothed == doctest::Approx(sm).epsilon(1e-6));
    for (std::size_t j = 0; j < v; ++j) CHECK(g[v + j] == 0.0f);  // the pad row
    auto loss = [&] { return smoothed_cross_entropy(mat(logits.data(), n, v), labels, 0, 0.1f, nullptr).smoothed; };
    check_grad("dlogits", loss, logits.data(), g.data(), n * v, 1e-3);
}

TEST_CASE("backward: the whole model with dropout (the backward pass draws the forward pass's masks again)") {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) for (bool inner : {false, true}) {
        CAPTURE(inner);  // dropout on attention probabilities and the feed-forward's hidden layer too
        ModelConfig c = tiny_model_config();
        c.norm = norm;
        c.activation = Activation::Gelu;  // smooth: no ReLU kink between the finite-difference steps
        Model m = random_model(c, 7);
        TrainBatch batch = tiny_batch(c);
        TrainOptions opt;
        opt.dropout = 0.3f;
        opt.seed = 42;
        if (inner) {
            TrainOptions outer_only = opt;
            opt.attention_dropout = opt.activation_dropout = 0.3f;
            Model g1 = zeros_like(m);
            TrainingWorkspace w1;
            const double without = forward_backward(m, batch, g1, outer_only, w1).smoothed;
            for (float TrainOptions::*which : {&TrainOptions::attention_dropout, &TrainOptions::activation_dropout}) {
                TrainOptions one = outer_only;
                one.*which = 0.3f;  // each kind on its own changes the loss: it is applied
                CHECK(forward_backward(m, batch, g1, one, w1).smoothed != without);
            }
        }
        Model g = zeros_like(m), scratch = zeros_like(m);
        TrainingWorkspace ws;
        const LossStats st = forward_backward(m, batch, g, opt, ws);
        // The same seed gives the same masks, so the loss of the dropped-out model is a function.
        auto loss = [&] { return forward_backward(m, batch, scratch, opt, ws).smoothed; };
        CHECK(loss() == st.smoothed);
        CHECK(evaluate_loss(m, batch, opt.label_smoothing, ws).smoothed != doctest::Approx(st.smoothed));
        TrainOptions other = opt;
        other.seed = 43;
        CHECK(forward_backward(m, batch, scratch, other, ws).smoothed != st.smoothed);
        check_every_tensor(m, g, c.d_model, loss);
    }
}

TEST_CASE("backward: cross-entropy with a bias, in place, and the bias gradient") {
    const std::size_t n = 70, v = 37;  // more rows than one task holds
    auto logits = random_vec(n * v, 31, 3.0f), bias = random_vec(v, 32);
    std::vector<std::int64_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) labels[i] = std::int64_t(i % 5 == 0 ? 0 : 1 + i % (v - 1));  // 0 is pad
    std::vector<float> shifted(n * v);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < v; ++j) shifted[i * v + j] = logits[i * v + j] + bias[j];
    std::vector<float> g_ref(n * v), g(n * v), dbias(v, 0.5f);
    const LossStats ref = smoothed_cross_entropy(mat(shifted.data(), n, v), labels, 0, 0.1f, g_ref.data());
    const LossStats with_bias =
        smoothed_cross_entropy(mat(logits.data(), n, v), labels, 0, 0.1f, g.data(), bias.data(), dbias.data());
    CHECK(with_bias.tokens == ref.tokens);
    CHECK(with_bias.nll == doctest::Approx(ref.nll).epsilon(1e-6));
    CHECK(with_bias.smoothed == doctest::Approx(ref.smoothed).epsilon(1e-6));
    for (std::size_t i = 0; i < n * v; ++i) CHECK(g[i] == doctest::Approx(g_ref[i]).epsilon(1e-5));
    for (std::size_t j = 0; j < v; ++j) {
        double col = 0.5;
        for (std::size_t i = 0; i < n; ++i) col += g_ref[i * v + j];
        CHECK(dbias[j] == doctest::Approx(col).epsilon(1e-4));
    }
    // In place: the gradient overwrites the logits.
    std::vector<float> in_place = logits;
    const LossStats again =
        smoothed_cross_entropy(mat(in_place.data(), n, v), labels, 0, 0.1f, in_place.data(), bias.data());
    CHECK(again.smoothed == with_bias.smoothed);
    CHECK(in_place == g);
}
