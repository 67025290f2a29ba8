// One forward pass: training's forward (dropout 0) gives the very logits inference gives, bit
// for bit, and the cached decoding step gives what the full-sequence pass gives, for every
// norm placement, activation, position encoding and vocabulary arrangement.
//
// The step is compared within a tolerance, not bit for bit: it multiplies one row per
// hypothesis where the full pass multiplies all rows at once, and OpenBLAS may round a
// product's rows differently by how many there are (docs/numerics.md).
#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/train/training.hpp"

using namespace tfm;

namespace {

struct Variant {
    NormPlacement norm;
    Activation activation;
    PositionKind positions;
    const char* vocab;  // tied | untied | separate
};

std::string describe(const Variant& v) {
    return std::string(v.norm == NormPlacement::Post ? "post" : "pre") + "/" + activation_name(v.activation) + "/" +
           (v.positions == PositionKind::Learned ? "learned"
            : v.positions == PositionKind::SinusoidalHalves ? "halves" : "interleaved") + "/" + v.vocab;
}

Model variant_model(const Variant& v, std::uint64_t seed) {
    ModelConfig c = preset_config("tiny", 37);
    c.d_model = 16;
    c.encoder_heads = c.decoder_heads = 4;
    c.encoder_ffn = c.decoder_ffn = 24;
    c.max_positions = 32;
    c.norm = v.norm;
    c.activation = v.activation;
    c.positions = v.positions;
    if (std::strcmp(v.vocab, "tied") != 0) c.tie_word_embeddings = false;
    if (std::strcmp(v.vocab, "separate") == 0) {
        c.share_embeddings = false;
        c.decoder_vocab_size = 29;
    }
    Model m = random_model(c, seed);
    // A bias that is not zero, so that where it is added shows in the bits.
    Rng rng(seed + 1);
    for (float& b : m.final_logits_bias) b = rng.uniform(-0.5f, 0.5f);
    return m;
}

// Sources and targets of different lengths (padding in both batches).
TrainBatch variant_batch(const ModelConfig& c, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<std::vector<std::int64_t>> src, tgt;
    for (std::size_t i = 0; i < 5; ++i) {
        std::vector<std::int64_t> s, t;
        for (std::size_t j = 0, n = 2 + rng.next() % 7; j < n; ++j) s.push_back(2 + std::int64_t(rng.next() % 35));
        for (std::size_t j = 0, n = 1 + rng.next() % 8; j < n; ++j)
            t.push_back(2 + std::int64_t(rng.next() % (c.target_vocab() - 2)));
        s.push_back(c.eos_id);
        src.push_back(s);
        tgt.push_back(t);
    }
    return make_train_batch(src, tgt, c);
}

// A variant's model and batch, and what inference computes for them: memory and logits.
struct Inference {
    Model model;
    TrainBatch batch;
    xt::xtensor<float, 2> memory, logits;
    Inference(const Variant& v, std::uint64_t seed) : model(variant_model(v, seed)), batch(variant_batch(model.config, seed + 1)) {
        EncoderWorkspace ews;
        encoder_forward(memory, model, batch.src, ews);
        DecoderWorkspace dws;
        decoder_forward(logits, model, batch.src, memory, batch.tgt, dws);
    }
};

std::vector<Variant> all_variants() {
    std::vector<Variant> out;
    for (NormPlacement n : {NormPlacement::Post, NormPlacement::Pre})
        for (Activation a : {Activation::Relu, Activation::Gelu, Activation::Swish})
            for (PositionKind p : {PositionKind::SinusoidalInterleaved, PositionKind::SinusoidalHalves, PositionKind::Learned})
                for (const char* vocab : {"tied", "untied", "separate"}) out.push_back({n, a, p, vocab});
    return out;
}

}  // namespace

TEST_CASE("one forward: training's logits (dropout 0) equal inference's, bit for bit") {
    std::uint64_t seed = 10;
    for (const Variant& v : all_variants()) {
        CAPTURE(describe(v));
        seed += 2;
        const Inference run(v, seed);
        const Model& m = run.model;
        const TrainBatch& b = run.batch;
        const xt::xtensor<float, 2>& logits = run.logits;
        TrainingWorkspace tws;
        const LossStats eval = evaluate_loss(m, b, 0.1f, tws);
        const xt::xtensor<float, 2> trained = tws.logits();
        REQUIRE(trained.shape() == logits.shape());
        CHECK(std::memcmp(trained.data(), logits.data(), logits.size() * sizeof(float)) == 0);

        // forward_backward with dropout 0 runs the same forward: the same loss to the bit.
        Model g = zeros_like(m);
        TrainOptions opt;
        opt.dropout = 0.0f;
        const LossStats fb = forward_backward(m, b, g, opt, tws);
        CHECK(fb.smoothed == eval.smoothed);
        CHECK(fb.nll == eval.nll);
        CHECK(fb.tokens == b.target_tokens);
    }
}

TEST_CASE("one forward: the cached decoding step equals the full-sequence pass") {
    std::uint64_t seed = 500;
    for (const Variant& v : all_variants()) {
        CAPTURE(describe(v));
        seed += 2;
        Inference run(v, seed);
        const Model& m = run.model;
        const TrainBatch& b = run.batch;
        xt::xtensor<float, 2>& full = run.logits;
        const std::size_t rows = b.tgt.batch, t = b.tgt.len, vocab = m.config.target_vocab();
        log_softmax_rows(mat(full.data(), rows * t, vocab), m.config.pad_id);
        DecoderState state(m, run.memory, b.src, t);
        std::vector<float> step(rows * vocab);
        double worst = 0;
        for (std::size_t i = 0; i < t; ++i) {
            std::vector<std::int64_t> tokens;
            for (std::size_t r = 0; r < rows; ++r) tokens.push_back(b.tgt.ids[r * t + i]);
            state.step(tokens, mat(step.data(), rows, vocab));
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t j = 0; j < vocab; ++j) {
                    const float a = step[r * vocab + j], e = full(r * t + i, j);
                    if (std::isinf(e)) {
                        REQUIRE(std::isinf(a));
                        continue;
                    }
                    worst = std::max(worst, double(std::fabs(a - e)) / (1.0 + std::fabs(e)));
                }
        }
        CAPTURE(worst);
        CHECK(worst < 1e-5);
    }
}
