// The search seam on its own: greedy and beam search over a fake StepFunction whose
// next-token probabilities are a fixed table, so the best hypotheses are known by hand.
#include <algorithm>
#include <cmath>
#include <map>

#include "helpers.hpp"
#include "tfm/decode/search.hpp"

using namespace tfm;

namespace {

constexpr std::int64_t kStart = 0, kEos = 1, kA = 2, kB = 3;

// A language model as a table: probabilities of pad/start, eos, a, b after each prefix of
// generated tokens. Sentence 1 is sentence 0 with a and b swapped. Prefixes not listed end
// almost surely.
class TableSteps : public StepFunction {
public:
    explicit TableSteps(std::size_t batch) {
        for (std::size_t i = 0; i < batch; ++i) rows_.push_back({i, {}});
    }
    std::size_t vocab() const override { return 4; }
    void step(const std::vector<std::int64_t>& tokens, Mat logprobs) override {
        REQUIRE(tokens.size() == rows_.size());
        REQUIRE(logprobs.rows == rows_.size());
        ++steps;
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            Row& row = rows_[r];
            if (tokens[r] != kStart) row.prefix.push_back(swap(row.sentence, tokens[r]));
            else REQUIRE(row.prefix.empty());
            const std::vector<double> p = probabilities(row.prefix);
            for (std::int64_t j = 0; j < 4; ++j) logprobs.data[r * logprobs.ld + std::size_t(swap(row.sentence, j))] =
                float(std::log(p[std::size_t(j)]));
        }
    }
    // A row's "attention": its sentence, then its prefix (the tokens it was given) - what a
    // hypothesis's attention rows must spell back if search follows its rows.
    void attention(std::size_t r, std::vector<float>& out) const override {
        const Row& row = rows_.at(r);
        out = {float(row.sentence)};
        for (std::int64_t t : row.prefix) out.push_back(float(swap(row.sentence, t)));
    }
    void select(const std::vector<std::size_t>& rows) override {
        std::vector<Row> next;
        for (std::size_t r : rows) next.push_back(rows_.at(r));
        rows_ = std::move(next);
    }
    std::size_t steps = 0;

private:
    struct Row {
        std::size_t sentence;
        std::vector<std::int64_t> prefix;  // in sentence 0's tokens
    };
    static std::int64_t swap(std::size_t sentence, std::int64_t t) {
        if (sentence == 0) return t;
        return t == kA ? kB : t == kB ? kA : t;
    }
    static std::vector<double> probabilities(const std::vector<std::int64_t>& prefix) {
        static const std::map<std::vector<std::int64_t>, std::vector<double>> table = {
            {{}, {1e-6, 0.1, 0.5, 0.4}},
            {{kA}, {1e-6, 0.4, 0.35, 0.25}},
            {{kB}, {1e-6, 0.9, 0.05, 0.05}},
        };
        auto it = table.find(prefix);
        return it != table.end() ? it->second : std::vector<double>{1e-6, 0.98, 0.01, 0.01};
    }
    std::vector<Row> rows_;
};

SearchOptions options(std::size_t batch, std::size_t beam, std::size_t max_len = 10) {
    SearchOptions o;
    o.beam = beam;
    o.n_best = beam;
    o.penalty = LengthPenalty::None;
    o.start_id = kStart;
    o.eos_id = kEos;
    o.max_len.assign(batch, max_len);
    return o;
}

}  // namespace

TEST_CASE("search: greedy follows the most probable token, beam finds the better sentence") {
    TableSteps greedy_steps(2);
    auto greedy = search(greedy_steps, 2, options(2, 1));
    REQUIRE(greedy.size() == 2);
    REQUIRE(greedy[0].size() == 1);
    CHECK(greedy[0][0].ids == std::vector<std::int64_t>{kA});  // a (0.5), then eos (0.4)
    CHECK(greedy[0][0].finished);
    CHECK(greedy[0][0].logprob == doctest::Approx(std::log(0.5 * 0.4)).epsilon(1e-6));
    CHECK(greedy[1][0].ids == std::vector<std::int64_t>{kB});  // the same with a and b swapped
    CHECK(greedy_steps.steps == 2);

    TableSteps beam_steps(2);
    auto beam = search(beam_steps, 2, options(2, 2));
    REQUIRE(beam[0].size() == 2);
    // b then eos: 0.4 * 0.9 = 0.36 beats a then eos: 0.5 * 0.4 = 0.2, which greedy chose.
    CHECK(beam[0][0].ids == std::vector<std::int64_t>{kB});
    CHECK(beam[0][0].logprob == doctest::Approx(std::log(0.36)).epsilon(1e-6));
    CHECK(beam[0][1].ids == std::vector<std::int64_t>{kA});
    CHECK(beam[0][1].logprob == doctest::Approx(std::log(0.2)).epsilon(1e-6));
    CHECK(beam[1][0].ids == std::vector<std::int64_t>{kA});
    CHECK(beam[1][1].ids == std::vector<std::int64_t>{kB});
    // each token's log-probability, eos's last: b 0.4, eos 0.9
    REQUIRE(beam[0][0].token_logprobs.size() == 2);
    CHECK(beam[0][0].token_logprobs[0] == doctest::Approx(std::log(0.4)).epsilon(1e-6));
    CHECK(beam[0][0].token_logprobs[1] == doctest::Approx(std::log(0.9)).epsilon(1e-6));
    REQUIRE(greedy[0][0].token_logprobs.size() == 2);
    CHECK(greedy[0][0].token_logprobs[1] == doctest::Approx(std::log(0.4)).epsilon(1e-6));
}

TEST_CASE("search: length limits and the length penalty") {
    SUBCASE("max_len stops a hypothesis unfinished") {
        TableSteps steps(1);
        auto out = search(steps, 1, options(1, 1, 1));
        CHECK(out[0][0].ids == std::vector<std::int64_t>{kA});
        CHECK_FALSE(out[0][0].finished);
        CHECK(out[0][0].logprob == doctest::Approx(std::log(0.5)).epsilon(1e-6));
    }
    SUBCASE("min_len forbids eos until enough tokens") {
        TableSteps steps(1);
        SearchOptions o = options(1, 1);
        o.min_len = 2;
        auto out = search(steps, 1, o);
        CHECK(out[0][0].ids == std::vector<std::int64_t>{kA, kA});  // eos (0.4) not allowed after a
        CHECK(out[0][0].finished);
    }
    SUBCASE("GNMT penalty: score = logprob / ((5 + len) / 6)^alpha, eos counted") {
        TableSteps steps(1);
        SearchOptions o = options(1, 2);
        o.penalty = LengthPenalty::Gnmt;
        o.alpha = 0.6;
        auto out = search(steps, 1, o);
        const Hypothesis& h = out[0][0];
        CHECK(h.ids == std::vector<std::int64_t>{kB});
        CHECK(h.score == doctest::Approx(h.logprob / std::pow((5.0 + 2.0) / 6.0, 0.6)).epsilon(1e-9));
        CHECK(out[0][0].score >= out[0][1].score);
    }
}

TEST_CASE("search: bad words are never generated, a sequence only after its prefix") {
    SUBCASE("one token banned everywhere: greedy and beam take b") {
        for (std::size_t beam : {1, 2}) {
            TableSteps steps(1);
            SearchOptions o = options(1, beam);
            o.bad_words = {{kA}};
            auto out = search(steps, 1, o);
            CHECK(out[0][0].ids == std::vector<std::int64_t>{kB});
            for (const Hypothesis& h : out[0])
                CHECK(std::find(h.ids.begin(), h.ids.end(), kA) == h.ids.end());
        }
    }
    SUBCASE("a two-token sequence: a after a is banned, a first is not") {
        TableSteps steps(1);
        SearchOptions o = options(1, 1);
        o.min_len = 2;  // after a, eos is not allowed: a then a would follow, but it is banned
        o.bad_words = {{kA, kA}};
        auto out = search(steps, 1, o);
        CHECK(out[0][0].ids == std::vector<std::int64_t>{kA, kB});
    }
    SUBCASE("ids outside the vocabulary are ignored") {
        TableSteps steps(1);
        SearchOptions o = options(1, 1);
        o.bad_words = {{99}, {-1}};
        CHECK(search(steps, 1, o)[0][0].ids == std::vector<std::int64_t>{kA});
    }
}

TEST_CASE("search: eos forced at a position (HF's forced_eos_token_id at max_length)") {
    for (std::size_t beam : {1, 2}) {
        CAPTURE(beam);
        TableSteps steps(1);
        SearchOptions o = options(1, beam, 2);
        o.bad_words = {{kB}};
        o.eos_forced_at = 2;
        // without forcing: a, a (0.35) stopped unfinished at 2 tokens; forced: a, eos
        auto out = search(steps, 1, o);
        const Hypothesis& h = out[0][0];
        CHECK(h.finished);
        CHECK(h.ids == std::vector<std::int64_t>{kA});
        CHECK(h.logprob == doctest::Approx(std::log(0.5 * 0.4)).epsilon(1e-6));
        for (const Hypothesis& x : out[0]) CHECK(std::isfinite(x.score));
    }
    SUBCASE("a limit of one token: eos at once") {
        TableSteps steps(1);
        SearchOptions o = options(1, 1, 1);
        o.eos_forced_at = 1;
        auto out = search(steps, 1, o);
        CHECK(out[0][0].ids.empty());
        CHECK(out[0][0].finished);
    }
}

namespace {

// The first tokens of n samples of sentence 0 (n rows of one table), counted.
std::map<std::int64_t, std::size_t> first_tokens(const SamplingOptions& s, std::size_t n) {
    TableSteps steps(n);
    SearchOptions o = options(n, 1, 1);
    o.n_best = 1;
    o.sampling = s;
    for (std::size_t i = 0; i < n; ++i) o.sample_ids.push_back(i);
    auto out = search(steps, n, o);
    std::map<std::int64_t, std::size_t> count;
    for (std::size_t b = 0; b < n; ++b) {  // in sentence 0's tokens (the others swap a and b)
        std::int64_t t = out[b][0].ids.empty() ? kEos : out[b][0].ids[0];
        if (b != 0 && (t == kA || t == kB)) t = t == kA ? kB : kA;
        ++count[t];
    }
    return count;
}

}  // namespace

TEST_CASE("sampling: top-k 1 is greedy; frequencies follow the distribution, cut and sharpened") {
    TableSteps greedy_steps(2), sample_steps(2);
    SearchOptions g = options(2, 1);
    g.n_best = 1;
    SearchOptions s = g;
    s.sampling = SamplingOptions{1, 1.0, 1.0, 42};
    auto greedy = search(greedy_steps, 2, g), sampled = search(sample_steps, 2, s);
    for (std::size_t b = 0; b < 2; ++b) {
        CHECK(sampled[b][0].ids == greedy[b][0].ids);
        CHECK(sampled[b][0].logprob == doctest::Approx(greedy[b][0].logprob));
    }
    const std::size_t n = 4000;
    const double tol = 4 * std::sqrt(0.25 / double(n));  // four standard deviations at p = 1/2
    auto near = [&](std::size_t count, double p) { return std::abs(double(count) / double(n) - p) < tol; };
    auto full = first_tokens({0, 1.0, 1.0, 7}, n);  // p: eos 0.1, a 0.5, b 0.4 (start 1e-6)
    CHECK(near(full[kEos], 0.1));
    CHECK(near(full[kA], 0.5));
    CHECK(near(full[kB], 0.4));
    auto top2 = first_tokens({2, 1.0, 1.0, 7}, n);  // a and b only
    CHECK(top2[kEos] == 0);
    CHECK(near(top2[kA], 0.5 / 0.9));
    auto nucleus = first_tokens({0, 0.45, 1.0, 7}, n);  // a alone reaches 0.45
    CHECK(nucleus[kA] == n);
    auto sharp = first_tokens({0, 1.0, 0.5, 7}, n);  // p^2 normalised: a .25/.42, b .16/.42, eos .01/.42
    CHECK(near(sharp[kA], 0.25 / 0.42));
    CHECK(near(sharp[kB], 0.16 / 0.42));
    CHECK(near(sharp[kEos], 0.01 / 0.42));
}

TEST_CASE("sampling: a sentence's samples depend on the seed and its number, not on its batch") {
    auto run = [](std::size_t batch, std::size_t at, std::uint64_t id, std::uint64_t seed) {
        TableSteps steps(batch);
        SearchOptions o = options(batch, 1);
        o.n_best = 3;
        o.sampling = SamplingOptions{0, 1.0, 1.5, seed};
        for (std::size_t b = 0; b < batch; ++b) o.sample_ids.push_back(b == at ? id : 100 + b);
        return search(steps, batch, o)[at];
    };
    auto ids = [](const std::vector<Hypothesis>& hs) {
        std::vector<std::vector<std::int64_t>> out;
        for (const auto& h : hs) out.push_back(h.ids);
        return out;
    };
    const auto alone = ids(run(2, 1, 7, 11));  // (the table's sentences 1, 2, ... are all alike)
    CHECK(alone.size() == 3);
    CHECK(ids(run(5, 3, 7, 11)) == alone);
    CHECK(ids(run(9, 8, 7, 11)) == alone);
    bool differs = false;
    for (std::uint64_t seed = 12; seed < 20 && !differs; ++seed) differs = ids(run(2, 1, 7, seed)) != alone;
    CHECK(differs);
}

TEST_CASE("search: a forced prefix starts every hypothesis; one ending with eos ends it") {
    for (std::size_t beam : {1, 2}) {
        CAPTURE(beam);
        TableSteps steps(2);
        SearchOptions o = options(2, beam);
        o.prefixes = {{kB}, {}};
        auto out = search(steps, 2, o);
        for (const Hypothesis& h : out[0]) CHECK(h.ids.front() == kB);
        CHECK(out[0][0].ids == std::vector<std::int64_t>{kB});  // b, then eos (0.9)
        TableSteps ended(1);
        SearchOptions e = options(1, beam);
        e.prefixes = {{kA, kA, kEos}};
        auto forced = search(ended, 1, e);
        CHECK(forced[0][0].ids == std::vector<std::int64_t>{kA, kA});
        CHECK(forced[0][0].finished);
        CHECK(forced[0][0].logprob == doctest::Approx(std::log(0.5 * 0.35 * 0.98)).epsilon(1e-6));
    }
}

// HF's ForcedBOSTokenLogitsProcessor (M2M100, NLLB-200: the target language's code): the
// first token is the forced one whatever the model says, with log-probability 0; a prefix
// follows it; a sentence without one searches freely.
TEST_CASE("search: a forced first token scores 0, a prefix follows it, other sentences are free") {
    for (std::size_t beam : {1, 2}) {
        CAPTURE(beam);
        TableSteps steps(2);
        SearchOptions o = options(2, beam);
        o.forced_first = {kB, -1};
        auto out = search(steps, 2, o);
        for (const Hypothesis& h : out[0]) CHECK(h.ids.front() == kB);
        CHECK(out[0][0].ids == std::vector<std::int64_t>{kB});  // b (forced), then eos (0.9)
        CHECK(out[0][0].token_logprobs.front() == 0.0f);
        CHECK(out[0][0].logprob == doctest::Approx(std::log(0.9)).epsilon(1e-6));
        TableSteps free(2);
        const auto unforced = search(free, 2, options(2, beam));  // sentence 1 searches as without forcing
        CHECK(out[1][0].ids == unforced[1][0].ids);
        CHECK(out[1][0].logprob == unforced[1][0].logprob);
        TableSteps both(1);
        SearchOptions p = options(1, beam);
        p.forced_first = {kA};
        p.prefixes = {{kA, kEos}};
        auto forced = search(both, 1, p);
        CHECK(forced[0][0].ids == std::vector<std::int64_t>{kA, kA});
        CHECK(forced[0][0].finished);
        CHECK(forced[0][0].logprob == doctest::Approx(std::log(0.35 * 0.98)).epsilon(1e-6));
    }
}

TEST_CASE("search: every hypothesis keeps the attention of the rows that made it, token by token") {
    for (std::size_t beam : {1, 2, 3}) {
        CAPTURE(beam);
        TableSteps steps(2);
        SearchOptions o = options(2, beam, 4);
        o.attention = true;
        const auto out = search(steps, 2, o);
        for (std::size_t b = 0; b < 2; ++b)
            for (const Hypothesis& h : out[b]) {
                REQUIRE(h.attention.size() == h.token_logprobs.size());
                for (std::size_t t = 0; t < h.attention.size(); ++t) {
                    std::vector<float> want{float(b)};  // the sentence, then the tokens before t
                    for (std::size_t i = 0; i < t; ++i) want.push_back(float(h.ids[i]));
                    CHECK(h.attention[t] == want);
                }
            }
    }
    SearchOptions o = options(1, 2);
    o.attention = true;
    struct NoAttention : StepFunction {
        std::size_t vocab() const override { return 2; }
        void step(const std::vector<std::int64_t>&, Mat lp) override { std::fill(lp.data, lp.data + lp.rows * lp.ld, -0.7f); }
        void select(const std::vector<std::size_t>&) override {}
    } none;
    CHECK_THROWS_AS(search(none, 1, o), Error);  // asked of a step function without attention
}
