// Batches cut into parts and their gradients summed in one fixed tree: the order is the one
// documented (TreeSum), a rank's block of parts is a node of the tree (so R ranks add in the
// order one process does), parts cover a batch exactly and carry about equal tokens, and a
// Trainer cutting batches into parts takes the update one whole batch takes, to rounding.
// tests/cli/mpi_train.sh runs the real MPI job.
#include "helpers.hpp"
#include "tfm/train/corpus.hpp"
#include "tfm/train/trainer.hpp"
#include "tfm/train/tree_sum.hpp"

using namespace tfm;

namespace {

// The parenthesised sum of leaves first..first+n-1, as TreeSum adds them.
std::string tree_of(std::size_t first, std::size_t n) {
    auto t = tree_sum<std::string>([](std::string& l, std::string&& r) { l = "(" + l + "+" + r + ")"; });
    for (std::size_t i = first; i < first + n; ++i) t.push(std::to_string(i));
    return t.result();
}

std::vector<SentencePair> pairs_of_lengths(const std::vector<std::size_t>& lengths) {
    std::vector<SentencePair> pairs;
    for (std::size_t len : lengths) {
        SentencePair p;
        for (std::size_t j = 0; j < len; ++j) p.tgt.push_back(3 + std::int64_t((j * 7 + len) % 13));
        p.src = p.tgt;
        p.src.push_back(1);  // eos
        pairs.push_back(p);
    }
    return pairs;
}

std::vector<float> flat_parameters(Model& m) {
    std::vector<float> out;
    visit_parameters(m, [&](const std::string&, float* p, std::size_t n) { out.insert(out.end(), p, p + n); });
    return out;
}

}  // namespace

TEST_CASE("tree sum: neighbours of equal size first, the rest from the right") {
    CHECK(tree_of(0, 1) == "0");
    CHECK(tree_of(0, 3) == "((0+1)+2)");
    CHECK(tree_of(0, 4) == "((0+1)+(2+3))");
    CHECK(tree_of(0, 6) == "(((0+1)+(2+3))+(4+5))");
    CHECK(tree_of(0, 7) == "(((0+1)+(2+3))+((4+5)+6))");
}

TEST_CASE("tree sum: R ranks summing blocks of P/R parts, then each other's sums, add as one process") {
    for (std::size_t parts : {1, 2, 4, 6, 8, 12, 16, 24}) {
        for (std::size_t ranks = 1; ranks <= parts; ++ranks) {
            const std::size_t k = parts / ranks;
            if (parts % ranks || (k & (k - 1))) continue;  // blocks of a power of two
            auto across = tree_sum<std::string>([](std::string& l, std::string&& r) { l = "(" + l + "+" + r + ")"; });
            for (std::size_t r = 0; r < ranks; ++r) across.push(tree_of(r * k, k));
            CAPTURE(parts);
            CAPTURE(ranks);
            CHECK(across.result() == tree_of(0, parts));
        }
    }
}

TEST_CASE("batch parts: consecutive, covering the batch, about equal tokens") {
    const auto pairs = pairs_of_lengths({3, 9, 4, 4, 12, 5, 6, 2, 8, 7, 3, 10, 5});
    std::vector<std::size_t> batch = {12, 0, 7, 5, 1, 9, 3, 11, 2, 6, 8, 4, 10};
    const auto tokens = [&](std::size_t i) { return std::max(pairs[i].src.size(), pairs[i].tgt.size() + 1); };
    for (std::size_t parts : {1, 2, 3, 4, 5, 13}) {
        std::vector<std::size_t> joined;
        std::size_t most = 0, least = SIZE_MAX;
        for (std::size_t p = 0; p < parts; ++p) {
            const auto part = batch_part(pairs, batch, p, parts);
            joined.insert(joined.end(), part.begin(), part.end());
            std::size_t t = 0;
            for (std::size_t i : part) t += tokens(i);
            most = std::max(most, t), least = std::min(least, t);
        }
        CAPTURE(parts);
        CHECK(joined == batch);
        CHECK(most - least <= 2 * 13);  // within two of the longest pair
    }
    // More parts than pairs: some parts are empty, and the rest still cover the batch.
    std::size_t empty = 0;
    std::vector<std::size_t> joined;
    for (std::size_t p = 0; p < 20; ++p) {
        const auto part = batch_part(pairs, batch, p, 20);
        joined.insert(joined.end(), part.begin(), part.end());
        empty += part.empty();
    }
    CHECK(joined == batch);
    CHECK(empty >= 7);
    CHECK_THROWS_AS(batch_part(pairs, batch, 4, 4), UsageError);
}

TEST_CASE("trainer: a batch in 4 parts makes the update the whole batch makes, to rounding, and again bit for bit") {
    ModelConfig c = preset_config("tiny", 16);
    c.d_model = 32;
    c.encoder_heads = c.decoder_heads = 4;
    c.encoder_ffn = c.decoder_ffn = 64;
    c.max_positions = 32;
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < 60; ++i) lengths.push_back(3 + (i * 5) % 9);
    Corpus corpus;
    corpus.pairs = pairs_of_lengths(lengths);
    auto train = [&](std::size_t parts) {
        Model m = random_model(c, 5);
        AdamOptions ao;
        ao.warmup = 10;
        Adam adam(m, ao);
        TrainerOptions to;
        to.batch_tokens = 256;
        to.batch_parts = parts;
        to.loss.dropout = 0.0f;
        Trainer t(m, corpus, to, adam, TrainState{});
        std::vector<double> losses;
        for (int s = 0; s < 3; ++s) losses.push_back(t.step().loss.smoothed);
        return std::make_pair(m, losses);
    };
    auto [whole, whole_losses] = train(1);
    (void)whole;
    auto [cut, cut_losses] = train(4);
    auto [again, again_losses] = train(4);
    for (std::size_t s = 0; s < 3; ++s) {
        CHECK(cut_losses[s] == doctest::Approx(whole_losses[s]).epsilon(1e-5));
        CHECK(again_losses[s] == cut_losses[s]);
    }
    // (Weights are not compared to the whole batch's: Adam divides by the gradients' size, so
    // rounding in a gradient near zero moves its weight by up to the learning rate.)
    const auto b = flat_parameters(cut), d = flat_parameters(again);
    CHECK(b == d);
}
