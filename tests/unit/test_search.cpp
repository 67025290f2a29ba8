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
