// Scoring (decode/scorer.hpp): teacher-forced log-probabilities against PyTorch's logits, equal
// to what search accumulates for the hypotheses it finishes, independent of the batch.
#include <cmath>

#include "helpers.hpp"
#include "tfm/decode/scorer.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::golden;

namespace {


}  // namespace

TEST_CASE("scorer: log-probabilities of given targets match PyTorch's logits") {
    for (const std::string name : {"base", "tcbig", "separate"}) {
        CAPTURE(name);
        const ModelDir md = load_model_dir(golden("opus_" + name));
        auto io = tfm_test::read_file(golden("opus_" + name + "_io.npy"));
        const IdArray src = as_ids(io[0]), lengths = as_ids(io[1]), tgt = as_ids(io[2]);
        const FloatArray logits = as_float(io[4]);  // [B,T,V] for decoder inputs tgt
        std::vector<std::vector<std::int64_t>> sources, targets;
        for (std::size_t b = 0; b < src.shape(0); ++b) {
            sources.emplace_back(&src(b, 0), &src(b, 0) + lengths(b));
            targets.emplace_back(&tgt(b, 1), &tgt(b, 0) + tgt.shape(1));  // the inputs' next tokens
        }
        const auto scores = score_targets(md.model, sources, targets, 2);
        const std::size_t v = logits.shape(2);
        for (std::size_t b = 0; b < targets.size(); ++b) {
            REQUIRE(scores[b].token_logprobs.size() == targets[b].size());
            double sum = 0;
            for (std::size_t t = 0; t < targets[b].size(); ++t) {
                double z = 0, mx = -1e30;
                const auto pad = std::size_t(md.model.config.pad_id);  // never a token: not in the sum
                for (std::size_t j = 0; j < v; ++j)
                    if (j != pad) mx = std::max(mx, double(logits(b, t, j)));
                for (std::size_t j = 0; j < v; ++j)
                    if (j != pad) z += std::exp(double(logits(b, t, j)) - mx);
                const double expected = double(logits(b, t, std::size_t(targets[b][t]))) - mx - std::log(z);
                CHECK(scores[b].token_logprobs[t] == doctest::Approx(expected).epsilon(1e-4));
                sum += scores[b].token_logprobs[t];
            }
            CHECK(scores[b].logprob == doctest::Approx(sum).epsilon(1e-12));
        }
    }
}

TEST_CASE("scorer: a finished hypothesis scores what search accumulated; batches do not matter") {
    const ModelDir md = load_model_dir(golden("opus_tcbig"));
    const Model& m = md.model;
    std::vector<std::vector<std::int64_t>> sources;
    for (const char* line : {"ein Hund rennt am See .", ">>por<< ein Kind spielt", ">>ita<<eine Frau", "Zebra Quokka",
                             "die Katze sieht das Haus"})
        sources.push_back(md.tokenizer.encode(line));
    for (std::size_t beam : {1, 3}) {
        DecodeOptions opt;
        opt.search.beam = beam;
        opt.search.n_best = beam;
        opt.search.penalty = LengthPenalty::None;
        const auto hyps = translate_sources(m, sources, opt);
        std::vector<std::vector<std::int64_t>> srcs, tgts;
        std::vector<double> expected;
        for (std::size_t i = 0; i < sources.size(); ++i)
            for (const Hypothesis& h : hyps[i]) {
                if (!h.finished) continue;
                srcs.push_back(sources[i]);
                tgts.push_back(h.ids);
                tgts.back().push_back(m.config.eos_id);
                expected.push_back(h.logprob);
            }
        REQUIRE(expected.size() >= 3);
        const auto together = score_targets(m, srcs, tgts, 32);
        for (std::size_t i = 0; i < expected.size(); ++i) {
            CAPTURE(i);
            CHECK(together[i].logprob == doctest::Approx(expected[i]).epsilon(1e-4));
            const auto alone = score_targets(m, {srcs[i]}, {tgts[i]}, 1);
            CHECK(alone[0].logprob == doctest::Approx(together[i].logprob).epsilon(1e-5));
        }
    }
    CHECK(tfm_test::error_of([&] { score_targets(m, {{1}}, {{}}, 1); }).find("empty") != std::string::npos);
    CHECK(tfm_test::error_of([&] { score_targets(m, {{1}}, {{1000}}, 1); }).find("outside the vocabulary") !=
          std::string::npos);
    CHECK(tfm_test::error_of([&] { score_targets(m, {{1}, {2}}, {{1}}, 1); }).find("2 sources and 1 targets") !=
          std::string::npos);
}

TEST_CASE("scorer: decoding forced to a reference (prefix + eos) has the reference's score") {
    const ModelDir md = load_model_dir(golden("opus_base"));
    const Model& m = md.model;
    std::vector<std::vector<std::int64_t>> sources, refs;
    for (const auto& [src, ref] : std::vector<std::pair<const char*, const char*>>{
             {"ein Hund rennt am See .", "a dog runs by the lake"}, {"die Katze", "the cat sees the house"}, {"Zebra", "ball"}}) {
        sources.push_back(md.tokenizer.encode(src));
        refs.push_back(md.tokenizer.encode_target(ref));  // pieces then eos
    }
    const auto scores = score_targets(m, sources, refs, 8);
    for (std::size_t beam : {1, 4}) {
        DecodeOptions opt;
        opt.search.beam = beam;
        opt.search.penalty = LengthPenalty::None;
        opt.prefixes = refs;
        const auto hyps = translate_sources(m, sources, opt);
        for (std::size_t i = 0; i < refs.size(); ++i) {
            CAPTURE(i);
            CHECK(hyps[i][0].finished);
            CHECK(std::vector<std::int64_t>(hyps[i][0].ids) == std::vector<std::int64_t>(refs[i].begin(), refs[i].end() - 1));
            CHECK(hyps[i][0].logprob == doctest::Approx(scores[i].logprob).epsilon(1e-4));
        }
    }
}

TEST_CASE("sampling through the model: the same samples for any thread count and batch") {
    const ModelDir md = load_model_dir(golden("opus_tcbig"));
    std::vector<std::vector<std::int64_t>> sources;
    for (const char* line : {"ein Hund rennt am See .", ">>por<< ein Kind spielt", "Zebra Quokka", "die Katze"})
        sources.push_back(md.tokenizer.encode(line));
    DecodeOptions opt;
    opt.search.n_best = 3;
    opt.search.beam = 3;
    opt.search.sampling = SamplingOptions{0, 0.95, 1.2, 5};
    opt.batch_size = 4;
    set_num_threads(2);
    const auto a = translate_sources(md.model, sources, opt);
    set_num_threads(1);
    opt.batch_size = 1;
    const auto b = translate_sources(md.model, sources, opt);
    set_num_threads(0);
    for (std::size_t i = 0; i < sources.size(); ++i)
        for (std::size_t k = 0; k < 3; ++k) CHECK(a[i][k].ids == b[i][k].ids);
}
