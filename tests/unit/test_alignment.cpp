// Alignments and unknown-word replacement: the encoder-decoder attention search keeps for each
// token against PyTorch (tests/golden/make_alignment_golden.py), its invariance to the batch
// and to the search, hard alignments, and the tokenizer's spellings behind --replace-unk.
#include <numeric>

#include "helpers.hpp"
#include "tfm/decode/alignment.hpp"
#include "tfm/decode/scorer.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::golden;

namespace {


struct Fixture {
    Model model;
    std::vector<std::vector<std::int64_t>> sources;
};

Fixture load_fixture(const std::string& name) {
    const std::string dir = golden("model_" + name);
    ModelConfig c = load_config(dir + "/config.json");
    Fixture f{load_model_weights(c, SafeTensors::open(dir + "/model.safetensors")), {}};
    auto io = tfm_test::read_file(golden("model_" + name + "_io.npy"));
    const IdArray src = as_ids(io[0]), lengths = as_ids(io[1]);
    for (std::size_t b = 0; b < src.shape(0); ++b) f.sources.emplace_back(&src(b, 0), &src(b, 0) + lengths(b));
    return f;
}

DecodeOptions greedy_with_attention(long layer, std::size_t heads) {
    DecodeOptions o;
    o.search.beam = 1;
    o.max_len = 12;  // the fixture's greedy limit
    o.max_len_b = 12;
    o.attention = DecodeOptions::Attention{layer, heads};
    return o;
}

}  // namespace

TEST_CASE("alignment: each greedy token's attention matches PyTorch's average over the chosen layer and heads") {
    for (const std::string name : {"post_relu_interleaved", "pre_swish_halves"}) {
        CAPTURE(name);
        const Fixture f = load_fixture(name);
        auto expected = tfm_test::read_file(golden("model_" + name + "_align.npy"));
        REQUIRE(expected.size() == 2 * f.sources.size());
        // (last layer, all heads) and (layer 0, its first 2 heads), as the fixture's order.
        const std::pair<long, std::size_t> choices[] = {{-1, 0}, {0, 2}};
        for (std::size_t k = 0; k < 2; ++k) {
            const auto hyps = translate_sources(f.model, f.sources, greedy_with_attention(choices[k].first, choices[k].second));
            for (std::size_t b = 0; b < f.sources.size(); ++b) {
                CAPTURE(b);
                const FloatArray want = as_float(expected[2 * b + k]);  // [T,S]
                const Hypothesis& h = hyps[b][0];
                REQUIRE(h.attention.size() == want.shape(0));
                REQUIRE(h.attention.size() == h.token_logprobs.size());
                for (std::size_t t = 0; t < want.shape(0); ++t) {
                    REQUIRE(h.attention[t].size() == want.shape(1));
                    for (std::size_t s = 0; s < want.shape(1); ++s)
                        CHECK(h.attention[t][s] == doctest::Approx(want(t, s)).epsilon(1e-4).scale(1));
                }
            }
        }
    }
}

TEST_CASE("alignment: the same with other sentences in the batch, and beam search keeps its best path's attention") {
    const Fixture f = load_fixture("post_relu_interleaved");
    DecodeOptions o = greedy_with_attention(-1, 0);
    const auto together = translate_sources(f.model, f.sources, o);
    for (std::size_t b = 0; b < f.sources.size(); ++b) {
        const auto alone = translate_sources(f.model, {f.sources[b]}, o);
        REQUIRE(alone[0][0].ids == together[b][0].ids);
        REQUIRE(alone[0][0].attention.size() == together[b][0].attention.size());
        for (std::size_t t = 0; t < alone[0][0].attention.size(); ++t)
            for (std::size_t s = 0; s < alone[0][0].attention[t].size(); ++s)
                CHECK(alone[0][0].attention[t][s] == doctest::Approx(together[b][0].attention[t][s]).epsilon(1e-5).scale(1));
    }
    // Beam search: every hypothesis of the n-best list carries one distribution per token, and
    // the distributions are those greedy search sees for the same prefix (the best path of a
    // beam whose best equals greedy's output).
    o.search.beam = 4;
    o.search.n_best = 4;
    const auto beams = translate_sources(f.model, f.sources, o);
    for (std::size_t b = 0; b < f.sources.size(); ++b)
        for (const Hypothesis& h : beams[b]) {
            REQUIRE(h.attention.size() == h.token_logprobs.size());
            for (const auto& row : h.attention) {
                REQUIRE(row.size() == f.sources[b].size());
                CHECK(std::accumulate(row.begin(), row.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-5));
            }
            if (h.ids != together[b][0].ids) continue;
            for (std::size_t t = 0; t < h.attention.size(); ++t)
                for (std::size_t s = 0; s < h.attention[t].size(); ++s)
                    CHECK(h.attention[t][s] == doctest::Approx(together[b][0].attention[t][s]).epsilon(1e-5).scale(1));
        }
}

TEST_CASE("alignment: scoring a hypothesis keeps the attention search kept for it") {
    const Fixture f = load_fixture("pre_swish_halves");
    for (const auto& choice : {DecodeOptions::Attention{-1, 0}, DecodeOptions::Attention{0, 3}}) {
        DecodeOptions o = greedy_with_attention(choice.layer, choice.heads);
        const auto hyps = translate_sources(f.model, f.sources, o);
        std::vector<std::vector<std::int64_t>> targets;
        for (const auto& h : hyps) {
            targets.push_back(h[0].ids);
            if (h[0].finished) targets.back().push_back(f.model.config.eos_id);
        }
        const auto scores = score_targets(f.model, f.sources, targets, 2, &choice);
        for (std::size_t b = 0; b < hyps.size(); ++b) {
            const auto& want = hyps[b][0].attention;
            REQUIRE(scores[b].attention.size() == want.size());
            for (std::size_t t = 0; t < want.size(); ++t) {
                REQUIRE(scores[b].attention[t].size() == want[t].size());
                for (std::size_t s = 0; s < want[t].size(); ++s)
                    CHECK(scores[b].attention[t][s] == doctest::Approx(want[t][s]).epsilon(1e-5).scale(1));
            }
        }
    }
    const DecodeOptions::Attention bad{5, 0};
    CHECK_THROWS_AS(score_targets(f.model, f.sources, {{3, 1}, {3, 1}, {3, 1}}, 2, &bad), UsageError);
}

TEST_CASE("alignment: layer and head choices are checked") {
    const Fixture f = load_fixture("post_relu_interleaved");  // 2 decoder layers, 4 heads
    CHECK_THROWS_AS(translate_sources(f.model, f.sources, greedy_with_attention(2, 0)), UsageError);
    CHECK_THROWS_AS(translate_sources(f.model, f.sources, greedy_with_attention(-3, 0)), UsageError);
    CHECK_THROWS_AS(translate_sources(f.model, f.sources, greedy_with_attention(0, 5)), UsageError);
    CHECK_NOTHROW(translate_sources(f.model, f.sources, greedy_with_attention(-2, 4)));
}

TEST_CASE("alignment: hard alignment takes the most attended source token, eos left out") {
    Hypothesis h;
    h.ids = {7, 8, 9};
    h.attention = {{0.1f, 0.2f, 0.7f}, {0.5f, 0.1f, 0.4f}, {0.3f, 0.3f, 0.4f}, {0.0f, 0.0f, 1.0f}};  // eos's last
    CHECK(attended_sources(h) == std::vector<std::size_t>{1, 0, 0});  // 0.7 and 0.4 on eos: not chosen
    h.attention = {{1.0f}, {1.0f}, {1.0f}};  // a source of eos only
    CHECK(attended_sources(h) == std::vector<std::size_t>{0, 0, 0});
    h.attention.clear();
    CHECK(attended_sources(h).empty());
}

TEST_CASE("tokenizer: spellings line up with the source ids, and <unk> takes the spelling given") {
    for (const std::string& dir : {std::string(TFM_SOURCE) + "/share/models/multi30k-de-en", golden("opus_base")}) {
        CAPTURE(dir);
        const ModelDir md = load_model_dir(dir);
        const Tokenizer& tok = md.tokenizer;
        for (const std::string line : {"ein Hund rennt am See .", "Zürich  liegt  am See", "", "ßßß Hund"}) {
            CAPTURE(line);
            std::vector<TokenSpelling> spelt;
            const auto ids = tok.encode(line, &spelt);
            CHECK(tok.encode(line) == ids);
            REQUIRE(spelt.size() == ids.size());
            CHECK(spelt.back().text.empty());  // eos
            std::string rebuilt;
            for (const auto& s : spelt) {
                if (s.text.empty()) continue;
                if (s.word_start && !rebuilt.empty()) rebuilt += ' ';
                rebuilt += s.text;
            }
            std::string words;  // the line with its spaces collapsed
            for (std::size_t i = 0; i < line.size(); ++i)
                if (line[i] != ' ' || (!words.empty() && words.back() != ' ')) words += line[i];
            while (!words.empty() && words.back() == ' ') words.pop_back();
            CHECK(rebuilt == words);
        }
        // <unk> first and last: a word of its own, and glued to the word before it.
        std::vector<std::int64_t> ids = tok.encode_target("Hund am See");
        ids.pop_back();
        REQUIRE(tok.decode(ids) == "Hund am See");
        ids.insert(ids.begin(), tok.unk_id());
        ids.push_back(tok.unk_id());
        std::vector<std::size_t> asked;
        CHECK(tok.decode(ids, [&](std::size_t i) {
            asked.push_back(i);
            return i == 0 ? TokenSpelling{"Zürich", true} : TokenSpelling{"!", false};
        }) == "Zürich Hund am See!");
        CHECK(asked == std::vector<std::size_t>{0, ids.size() - 1});
        CHECK(tok.decode(ids, [](std::size_t) { return TokenSpelling{}; }) == "Hund am See");  // nothing to copy
    }
}
