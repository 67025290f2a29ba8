// Learning works: a tiny model trained here with the paper's recipe (Adam 0.9/0.98/1e-9,
// warmup schedule, label smoothing 0.1) learns to copy random sequences, and greedy search
// then reproduces held-out sequences exactly. The test fails if learning breaks.
#include "helpers.hpp"
#include "tfm/train/optimizer.hpp"
#include "tfm/train/training.hpp"
#include "tfm/decode/translator.hpp"

using namespace tfm;

TEST_CASE("optimizer: the warmup schedule of the paper") {
    // Rises linearly to its peak at the warmup step, then falls as step^-0.5.
    const double peak = noam_learning_rate(4000, 512, 4000, 1.0);
    CHECK(peak == doctest::Approx(std::pow(512.0, -0.5) * std::pow(4000.0, -0.5)));
    CHECK(noam_learning_rate(2000, 512, 4000, 1.0) == doctest::Approx(peak / 2));
    CHECK(noam_learning_rate(16000, 512, 4000, 1.0) == doctest::Approx(peak / 2));
    CHECK(noam_learning_rate(100, 512, 4000, 2.0) == doctest::Approx(2 * noam_learning_rate(100, 512, 4000, 1.0)));
}

TEST_CASE("optimizer: the cooldown falls linearly to zero over the run's last updates") {
    // A run of 100 updates, the last 20 cooling down: 20/21 at update 81, 1/21 at update 100.
    for (std::size_t s : {std::size_t(1), std::size_t(50), std::size_t(80)}) CHECK(cooldown_factor(s, 100, 0.2) == 1.0);
    CHECK(cooldown_factor(81, 100, 0.2) == doctest::Approx(20.0 / 21));
    CHECK(cooldown_factor(90, 100, 0.2) == doctest::Approx(11.0 / 21));
    CHECK(cooldown_factor(100, 100, 0.2) == doctest::Approx(1.0 / 21));
    CHECK(cooldown_factor(101, 100, 0.2) == 0.0);
    // Monotone over a whole-run cooldown; off without a fraction or a horizon.
    for (std::size_t s = 1; s < 100; ++s) CHECK(cooldown_factor(s + 1, 100, 1.0) < cooldown_factor(s, 100, 1.0));
    CHECK(cooldown_factor(1, 100, 1.0) == doctest::Approx(100.0 / 101));
    CHECK(cooldown_factor(99, 100, 0.0) == 1.0);
    CHECK(cooldown_factor(99, 0, 0.5) == 1.0);
    CHECK(cooldown_factor(3, 3, 0.01) == doctest::Approx(0.5));  // at least one update cools down
    // Adam's rate is the warmup schedule's times the factor, counted from its horizon.
    ModelConfig c = preset_config("tiny", 16);
    Model m = random_model(c, 1);
    AdamOptions ao;
    ao.warmup = 10;
    ao.cooldown = 0.5;
    Adam adam(m, ao);
    CHECK(adam.learning_rate() == doctest::Approx(noam_learning_rate(1, c.d_model, 10, 1.0)));  // no horizon yet
    adam.set_horizon(40);
    adam.set_steps(29);  // the next update is the 30th of 40, the 10th of a 20-update cooldown
    CHECK(adam.learning_rate() == doctest::Approx(noam_learning_rate(30, c.d_model, 10, 1.0) * 11.0 / 21));
}

TEST_CASE("training: a tiny model learns to copy sequences; greedy search then copies exactly") {
    ModelConfig c = preset_config("tiny", 16);  // ids 3..15 are symbols
    c.d_model = 32;
    c.encoder_heads = c.decoder_heads = 4;
    c.encoder_ffn = c.decoder_ffn = 64;
    c.encoder_layers = c.decoder_layers = 2;
    c.max_positions = 32;
    Model m = random_model(c, 1);
    AdamOptions ao;
    ao.warmup = 100;
    ao.lr_factor = 1.0;
    // The learning rate falls to zero over the last 200 updates: the model settles by update
    // 400 (all 50 copied from update 300 on with the OpenBLAS kernels for Haswell, Sandy
    // Bridge and Nehalem; without the cooldown it took 800 updates to be as sure).
    ao.cooldown = 0.5;
    const std::size_t updates = 400;
    Adam adam(m, ao);
    adam.set_horizon(updates);
    Rng rng(2);
    auto sample = [&](std::size_t n) {
        std::vector<std::vector<std::int64_t>> src, tgt;
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<std::int64_t> s;
            const std::size_t len = 3 + rng.next() % 5;
            for (std::size_t j = 0; j < len; ++j) s.push_back(3 + std::int64_t(rng.next() % 13));
            tgt.push_back(s);
            s.push_back(c.eos_id);
            src.push_back(s);
        }
        return std::make_pair(src, tgt);
    };
    TrainOptions to;
    to.dropout = 0.0f;
    double first_nll = 0, last_nll = 0;
    Model g = zeros_like(m);
    TrainingWorkspace ws;
    for (std::size_t step = 0; step < updates; ++step) {
        auto [src, tgt] = sample(64);
        TrainBatch b = make_train_batch(src, tgt, c);
        visit_parameters(g, [](const std::string&, float* p, std::size_t n) { std::fill(p, p + n, 0.0f); });
        to.seed = step;
        LossStats st = forward_backward(m, b, g, to, ws);
        if (step == 0) first_nll = st.nll / double(st.tokens);
        last_nll = st.nll / double(st.tokens);
        adam.update(m, g, 1.0 / double(st.tokens));
    }
    CAPTURE(first_nll);
    CAPTURE(last_nll);
    // Label smoothing 0.1 over 16 ids puts the floor near -log(0.9 + 0.1/16) = 0.1.
    CHECK(last_nll < 0.2);
    auto [src, tgt] = sample(50);
    DecodeOptions dopt;
    dopt.search.beam = 1;
    auto out = translate_sources(m, src, dopt);
    std::size_t exact = 0;
    for (std::size_t i = 0; i < src.size(); ++i) exact += out[i][0].ids == tgt[i];
    CAPTURE(exact);
    CHECK(exact == src.size());
}
