#include "bench/bench_breakdown.hpp"

#include <cmath>

#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/nn/feedforward.hpp"
#include "tfm/nn/layernorm.hpp"
#include "tfm/nn/linear.hpp"
#include "tfm/model/model.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/random.hpp"
#include "tfm/nn/softmax.hpp"

namespace tfm {

std::vector<LayerPart> bench_encoder_layer_parts(std::size_t n, std::size_t d, std::size_t heads, std::size_t ffn,
                                                 const TimingOptions& opt) {
    const std::size_t k = head_size(d, heads);
    MultiHeadConfig mc;
    mc.d = d;
    mc.attention.heads = heads;
    const MultiHeadParams p = random_multihead(mc, 1);
    Rng rng(2);
    const FeedForward ff = random_feedforward(d, ffn, rng);
    LayerNorm ln;
    ln.gamma = xt::ones<float>({d});
    ln.beta = xt::zeros<float>({d});
    std::vector<float> x(n * d), q(n * d), kk(n * d), v(n * d), ctx(n * d), y(n * d), hidden;
    std::vector<float> scores(heads * n * n);  // [H,n,n]
    for (float& e : x) e = rng.uniform(-1, 1);
    const ConstMat xm = mat(x.data(), n, d);
    const Mat qm = mat(q.data(), n, d), km = mat(kk.data(), n, d), vm = mat(v.data(), n, d), cm = mat(ctx.data(), n, d),
              ym = mat(y.data(), n, d);
    const float scale = 1.0f / std::sqrt(float(k));
    const double nd2 = 2.0 * double(n) * double(d) * double(d), n2d = 2.0 * double(n) * double(n) * double(d);
    std::vector<LayerPart> parts;
    auto part = [&](const std::string& name, double flops, const std::function<void()>& run) {
        parts.push_back({name, time_it(run, opt), flops});
    };
    part("QKV projections", 3 * nd2, [&] {
        linear_forward(qm, xm, *p.q);
        linear_forward(km, xm, *p.k);
        linear_forward(vm, xm, *p.v);
    });
    auto head_scores = [&](std::size_t h) { return mat(scores.data() + h * n * n, n, n); };
    part("QK^T", n2d, [&] {
        parallel_for(heads, [&](std::size_t h) {
            gemm(head_scores(h), ConstMat(qm).cols_range(h * k, k), Op::N, ConstMat(km).cols_range(h * k, k), Op::T, scale);
        });
    });
    part("softmax", 0, [&] {
        parallel_for(heads, [&](std::size_t h) { softmax_rows(head_scores(h), PrefixMask{n, false}, 0, n, n); });
    });
    part("PV", n2d, [&] {
        parallel_for(heads, [&](std::size_t h) {
            gemm(cm.cols_range(h * k, k), head_scores(h), Op::N, ConstMat(vm).cols_range(h * k, k), Op::N);
        });
    });
    part("output projection", nd2, [&] { linear_forward(ym, cm, *p.out); });
    part("residual + LayerNorm (x2)", 0, [&] {
        for (int twice = 0; twice < 2; ++twice) {
            for (std::size_t i = 0; i < n * d; ++i) y[i] += x[i];
            layernorm_forward(ym, ym, ln);
        }
    });
    part("feed-forward", 2.0 * nd2 * double(ffn) / double(d),
         [&] { feedforward_forward(ym, xm, ff, Activation::Relu, hidden); });
    return parts;
}

std::vector<DecodeStepPoint> bench_decode_steps(const ModelConfig& c, std::size_t src_len,
                                                const std::vector<std::size_t>& positions, const TimingOptions& opt) {
    const Model m = random_model(c, 1);
    Rng rng(3);
    std::vector<std::int64_t> src_ids;
    for (std::size_t i = 0; i + 1 < src_len; ++i) src_ids.push_back(3 + std::int64_t(rng.next() % (c.vocab_size - 3)));
    src_ids.push_back(c.eos_id);
    const TokenBatch src = make_token_batch({src_ids}, c.pad_id);
    EncoderWorkspace ews;
    xt::xtensor<float, 2> memory;
    encoder_forward(memory, m, src, ews);
    const std::size_t v = c.target_vocab();
    std::vector<float> logprobs(v);
    std::vector<DecodeStepPoint> out;
    for (std::size_t t : positions) {
        DecodeStepPoint pt;
        pt.position = t;
        // With the cache: fill it with t steps, then time the steps that follow.
        const std::size_t reps = std::size_t(opt.warmup + opt.repetitions);
        DecoderState state(m, memory, src, t + reps + 1);
        std::vector<std::int64_t> token = {c.decoder_start_id};
        for (std::size_t i = 0; i < t; ++i) {
            state.step(token, mat(logprobs.data(), 1, v));
            token[0] = 3 + std::int64_t(i % (v - 3));
        }
        pt.cached = time_it([&] { state.step(token, mat(logprobs.data(), 1, v)); }, opt);
        // Without: the decoder over the prefix of t + 1 inputs, every position again.
        std::vector<std::int64_t> prefix = {c.decoder_start_id};
        for (std::size_t i = 0; i < t; ++i) prefix.push_back(3 + std::int64_t(i % (v - 3)));
        const TokenBatch tgt = make_token_batch({prefix}, c.pad_id);
        DecoderWorkspace dws;
        xt::xtensor<float, 2> logits;
        pt.recomputed = time_it([&] { decoder_forward(logits, m, src, memory, tgt, dws); }, opt);
        out.push_back(pt);
    }
    return out;
}

}  // namespace tfm
