// The whole model against PyTorch fixtures (tests/golden/make_model_golden.py): encoder
// output, teacher-forced logits, greedy ids; and search properties: beam 1 = greedy, n-best
// sorted, batch invariance, cached incremental decoding = full recomputation.
#include <cmath>

#include "helpers.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/batch_plan.hpp"
#include "tfm/decode/translator.hpp"

using namespace tfm;
using tfm_test::check_close;

namespace {

struct Golden {
    Model model;
    TokenBatch src, tgt;
    FloatArray memory, logits;
    IdArray greedy;
    std::size_t max_len;
};

TokenBatch batch_of(const IdArray& ids, const IdArray& lengths) {
    TokenBatch b;
    b.batch = ids.shape(0);
    b.len = ids.shape(1);
    b.ids.assign(ids.begin(), ids.end());
    for (auto n : lengths) b.lengths.push_back(std::size_t(n));
    return b;
}

Golden load_golden(const std::string& name) {
    std::string dir = std::string(TFM_GOLDEN) + "/model_" + name;
    ModelConfig c = load_config(dir + "/config.json");
    Golden g{load_model_weights(c, SafeTensors::open(dir + "/model.safetensors")), {}, {}, {}, {}, {}, 0};
    auto io = tfm_test::read_file(std::string(TFM_GOLDEN) + "/model_" + name + "_io.npy");
    REQUIRE(io.size() == 7);
    IdArray lengths = as_ids(io[1]);
    g.src = batch_of(as_ids(io[0]), lengths);
    IdArray tgt = as_ids(io[2]);
    IdArray tgt_len = xt::ones<std::int64_t>({tgt.shape(0)}) * std::int64_t(tgt.shape(1));
    g.tgt = batch_of(tgt, tgt_len);
    g.memory = as_float(io[3]);
    g.logits = as_float(io[4]);
    g.greedy = as_ids(io[5]);
    g.max_len = std::size_t(as_ids(io[6])(0));
    return g;
}

const char* const kVariants[] = {"post_relu_interleaved", "pre_swish_halves", "post_gelu_learned_untied",
                                 "post_relu_separate_vocab", "m2m_100"};

SearchOptions options(const Model& m, std::size_t batch, std::size_t max_len, std::size_t beam) {
    SearchOptions o;
    o.beam = beam;
    o.start_id = m.config.decoder_start_id;
    o.eos_id = m.config.eos_id;
    o.max_len.assign(batch, max_len);
    return o;
}

std::vector<std::vector<Hypothesis>> run_search(const Model& m, const TokenBatch& src, std::size_t max_len,
                                                std::size_t beam, std::size_t n_best = 1) {
    EncoderWorkspace ws;
    xt::xtensor<float, 2> memory;
    encoder_forward(memory, m, src, ws);
    DecoderState state(m, memory, src, max_len + 1);
    SearchOptions o = options(m, src.batch, max_len, beam);
    o.n_best = n_best;
    return search(state, src.batch, o);
}

}  // namespace

TEST_CASE("model: encoder, decoder logits and greedy ids match PyTorch") {
    for (const char* name : kVariants) {
        CAPTURE(name);
        Golden g = load_golden(name);
        EncoderWorkspace ews;
        xt::xtensor<float, 2> memory;
        encoder_forward(memory, g.model, g.src, ews);
        check_close(memory, g.memory, 1e-4, 1e-4);
        DecoderWorkspace dws;
        xt::xtensor<float, 2> logits;
        decoder_forward(logits, g.model, g.src, memory, g.tgt, dws);
        check_close(logits, g.logits, 1e-4, 1e-4);
        auto hyps = run_search(g.model, g.src, g.max_len, 1);
        for (std::size_t b = 0; b < g.src.batch; ++b) {
            std::vector<std::int64_t> expected;
            for (std::size_t i = 0; i < g.greedy.shape(1) && g.greedy(b, i) >= 0; ++i) expected.push_back(g.greedy(b, i));
            CHECK(hyps[b][0].ids == expected);
        }
    }
}

TEST_CASE("model: cached incremental decoding equals full recomputation") {
    Golden g = load_golden("pre_swish_halves");
    const Model& m = g.model;
    EncoderWorkspace ews;
    xt::xtensor<float, 2> memory;
    encoder_forward(memory, m, g.src, ews);
    DecoderWorkspace dws;
    xt::xtensor<float, 2> full;
    decoder_forward(full, m, g.src, memory, g.tgt, dws);
    const std::size_t b = g.tgt.batch, t = g.tgt.len, v = m.config.vocab_size;
    log_softmax_rows(mat(full.data(), b * t, v), m.config.pad_id);
    DecoderState state(m, memory, g.src, t);
    std::vector<float> step(b * v);
    for (std::size_t i = 0; i < t; ++i) {
        std::vector<std::int64_t> tokens;
        for (std::size_t r = 0; r < b; ++r) tokens.push_back(g.tgt.ids[r * t + i]);
        state.step(tokens, mat(step.data(), b, v));
        for (std::size_t r = 0; r < b; ++r)
            for (std::size_t j = 0; j < v; ++j) {
                float a = step[r * v + j], e = full(r * t + i, j);
                if (std::isinf(e)) REQUIRE(std::isinf(a));
                else REQUIRE(a == doctest::Approx(e).epsilon(1e-5));
            }
    }
}

TEST_CASE("model: beam 1 equals greedy; n-best lists are sorted") {
    Golden g = load_golden("post_relu_interleaved");
    auto greedy = run_search(g.model, g.src, 12, 1);
    EncoderWorkspace ws;
    xt::xtensor<float, 2> memory;
    encoder_forward(memory, g.model, g.src, ws);
    DecoderState state(g.model, memory, g.src, 13);
    auto beam1 = beam_search(state, g.src.batch, options(g.model, g.src.batch, 12, 1));
    auto beam4 = run_search(g.model, g.src, 12, 4, 4);
    for (std::size_t b = 0; b < g.src.batch; ++b) {
        CHECK(beam1[b][0].ids == greedy[b][0].ids);
        CHECK(beam1[b][0].score == doctest::Approx(greedy[b][0].score).epsilon(1e-6));
        REQUIRE(beam4[b].size() == 4);
        for (std::size_t k = 1; k < 4; ++k) CHECK(beam4[b][k - 1].score >= beam4[b][k].score);
    }
}

TEST_CASE("model: a sentence decodes the same whatever shares its batch") {
    Golden g = load_golden("pre_swish_halves");
    Model& m = g.model;
    std::vector<std::vector<std::int64_t>> sources = {{5, 6, 7, 8, 9, 10, 1}, {11, 12, 1}, {20, 21, 22, 23, 1}, {30, 1}};
    for (std::size_t beam : {std::size_t(1), std::size_t(3)}) {
        DecodeOptions opt;
        opt.search.beam = beam;
        opt.max_len = 10;
        opt.batch_size = 4;
        auto together = translate_sources(m, sources, opt);
        for (std::size_t i = 0; i < sources.size(); ++i) {
            auto alone = translate_sources(m, {sources[i]}, opt);
            CAPTURE(i);
            CHECK(alone[0][0].ids == together[i][0].ids);
            CHECK(alone[0][0].score == doctest::Approx(together[i][0].score).epsilon(1e-5));
        }
        opt.batch_size = 3;  // other batch compositions
        auto other = translate_sources(m, sources, opt);
        for (std::size_t i = 0; i < sources.size(); ++i) CHECK(other[i][0].ids == together[i][0].ids);
    }
}

TEST_CASE("model: one batch dealt out among threads translates as on one thread") {
    // Fewer batches than threads: each batch is cut into parts, one per thread (translate and
    // decode of encoded memories alike); a part of one sentence too when threads outnumber them.
    Golden g = load_golden("pre_swish_halves");
    std::vector<std::vector<std::int64_t>> sources = {{5, 6, 7, 8, 9, 10, 1}, {11, 12, 1}, {20, 21, 22, 23, 1}, {30, 1}, {}};
    for (std::size_t beam : {std::size_t(1), std::size_t(3)}) {
        DecodeOptions opt;
        opt.search.beam = beam;
        opt.search.n_best = beam;
        opt.max_len = 10;
        opt.batch_size = 8;  // one batch
        set_num_threads(1);
        const auto one = translate_sources(g.model, sources, opt);
        const auto memories = encode_sources(g.model, sources, 8);
        for (int threads : {2, 3, 7}) {
            set_num_threads(threads);
            const auto many = translate_sources(g.model, sources, opt);
            const auto piped = decode_memories(g.model, memories, opt);
            for (std::size_t i = 0; i < sources.size(); ++i) {
                CAPTURE(beam);
                CAPTURE(threads);
                CAPTURE(i);
                REQUIRE(many[i].size() == one[i].size());
                REQUIRE(piped[i].size() == one[i].size());
                for (std::size_t k = 0; k < one[i].size(); ++k) {
                    CHECK(many[i][k].ids == one[i][k].ids);
                    CHECK(piped[i][k].ids == one[i][k].ids);
                    CHECK(many[i][k].score == doctest::Approx(one[i][k].score).epsilon(1e-5));
                    CHECK(piped[i][k].score == doctest::Approx(one[i][k].score).epsilon(1e-5));
                }
            }
        }
        set_num_threads(0);
    }
}

TEST_CASE("model: threads share the products of a large model's thin steps, and take parts of their own elsewhere") {
    // A decoding step of the base model multiplies every decoder layer's self-attention (4 D^2),
    // cross-attention query and output (2 D^2) and feed-forward (2 D F) weights, and the
    // output projection (V D): 104.6 MB in fp32.
    const Model base = random_model(preset_config("base", 8000), 1);
    const Model small = random_model(preset_config("small", 8000), 1);
    CHECK(decoder_step_weight_bytes(base) == 4 * (6 * (6 * 512 * 512 + 2 * 512 * 2048) + 8000 * 512));
    CHECK(decoder_step_weight_bytes(small) == 4 * (3 * (6 * 256 * 256 + 2 * 256 * 1024) + 8000 * 256));
    auto sentences = [](std::size_t n, std::size_t per_batch) {
        std::vector<std::vector<std::size_t>> batches;
        for (std::size_t i = 0; i < n; ++i) {
            if (i % per_batch == 0) batches.emplace_back();
            batches.back().push_back(i);
        }
        return batches;
    };
    using Sizes = std::vector<std::size_t>;
    // The plan for n sentences in batches of per_batch, searched with beam, is to run parts of
    // these sizes (threads of their own or not).
    auto check_plan = [&](const Model& m, std::size_t n, std::size_t per_batch, std::size_t beam, bool own,
                          const Sizes& sizes) {
        CAPTURE(n);
        CAPTURE(per_batch);
        CAPTURE(beam);
        const BatchPlan p = plan_batches(m, sentences(n, per_batch), beam);
        Sizes got;
        for (const auto& b : p.batches) got.push_back(b.size());
        CHECK(p.own == own);
        CHECK(got == sizes);
        return p;
    };
    set_num_threads(2);
    // One batch of 32: greedy on the base model runs it whole, the threads sharing each product
    // (16 rows a part would be thin against 105 MB); beam 4 (64 rows a part) and the small model
    // (20 MB) deal it out, round-robin.
    check_plan(base, 32, 32, 1, false, {32});
    const BatchPlan dealt = check_plan(base, 32, 32, 4, true, {16, 16});
    CHECK(dealt.batches[0].front() == 0);
    CHECK(dealt.batches[1].front() == 1);
    check_plan(small, 32, 32, 1, true, {16, 16});
    // Full batches of 32 at greedy (32 rows a thread) are thin against 105 MB too: they run one
    // after another. 64 rows a thread are not: batches of 64 at greedy, or of 16 at beam 4.
    check_plan(base, 64, 32, 1, false, {32, 32});
    check_plan(base, 128, 64, 1, true, {64, 64});
    check_plan(base, 32, 16, 4, true, {16, 16});
    check_plan(base, 16, 8, 4, false, {8, 8});
    // The small model's steps (20 MB) are never large: full batches go a thread each.
    check_plan(small, 64, 32, 1, true, {32, 32});
    // Fewer parts than threads (3 sentences on 4 threads): the batch runs whole.
    set_num_threads(4);
    check_plan(small, 3, 32, 1, false, {3});
    check_plan(small, 5, 32, 1, true, {2, 1, 1, 1});
    set_num_threads(1);
    check_plan(small, 32, 32, 1, false, {32});
    // Packed for inference on kernels that round a row by its company (AVX2's jit gemm), a
    // batch is never cut into parts by the thread count: results stay the same for any count.
    set_num_threads(4);
    Model packed = random_model(preset_config("small", 8000), 1);
    pack_for_inference(packed, ComputeType::Float32);
    if (packed.output_packed->rows_independent()) check_plan(packed, 5, 32, 1, true, {2, 1, 1, 1});
    else check_plan(packed, 5, 32, 1, false, {5});
    set_num_threads(2);
    check_plan(packed, 64, 32, 1, true, {32, 32});  // whole batches a thread each: rows keep their company
    set_num_threads(0);
    CHECK(plan_batches(small, {}, 1).batches.empty());
}

TEST_CASE("model: encode then decode gives what translate gives") {
    Golden g = load_golden("post_gelu_learned_untied");
    std::vector<std::vector<std::int64_t>> sources = {{5, 6, 7, 1}, {}, {11, 12, 13, 14, 15, 1}};
    DecodeOptions opt;
    opt.search.beam = 2;
    opt.max_len = 8;
    auto direct = translate_sources(g.model, sources, opt);
    auto memories = encode_sources(g.model, sources, 2);
    CHECK(memories[1].shape(0) == 0);
    auto piped = decode_memories(g.model, memories, opt);
    for (std::size_t i = 0; i < sources.size(); ++i) {
        CHECK(direct[i][0].ids == piped[i][0].ids);
        CHECK(direct[i][0].score == doctest::Approx(piped[i][0].score).epsilon(1e-6));
    }
    CHECK(direct[1][0].ids.empty());
}

TEST_CASE("model: length penalties and limits") {
    CHECK(length_penalty(LengthPenalty::Gnmt, 0.6, 7) == doctest::Approx(std::pow(2.0, 0.6)));
    CHECK(length_penalty(LengthPenalty::Power, 0.5, 16) == doctest::Approx(4.0));
    CHECK(length_penalty(LengthPenalty::None, 0.6, 16) == 1.0);
    ModelConfig c = preset_config("tiny", 100);
    DecodeOptions o;
    CHECK(output_limit(c, 10, o) == 60);  // source length + 50
    o.max_len = 20;
    CHECK(output_limit(c, 10, o) == 20);
    o.max_len = 0;
    CHECK(output_limit(c, 600, o) == c.max_positions);
    CHECK(tfm_test::error_of([] { parse_length_penalty("exp"); }).find("unknown length penalty") == 0);
}

TEST_CASE("model: packed for inference as it loads, or after; float32 translates as unpacked") {
    const std::vector<std::vector<std::int64_t>> sources = {{5, 6, 7, 8, 9, 10, 1}, {11, 12, 1}, {}, {30, 1}};
    DecodeOptions opt;
    opt.search.beam = 2;
    opt.max_len = 8;
    for (const char* name : kVariants) {
        CAPTURE(name);
        const std::string dir = std::string(TFM_GOLDEN) + "/model_" + name;
        const ModelConfig c = load_config(dir + "/config.json");
        const SafeTensors file = SafeTensors::open(dir + "/model.safetensors");
        const auto reference = translate_sources(load_model_weights(c, file), sources, opt);
        for (ComputeType t : {ComputeType::Float32, ComputeType::BFloat16, ComputeType::Int8}) {
            if (!compute_type_supported(t)) continue;
            const std::string type = compute_type_name(t);
            CAPTURE(type);
            Model loaded = load_model_weights(c, file, t);
            Model after = load_model_weights(c, file);
            pack_for_inference(after, t);
            CHECK(loaded.packed());
            CHECK(loaded.encoder[0].ffn.fc1.weight.size() == 0);  // the fp32 copy is gone
            CHECK(loaded.lm_head.size() == 0);
            if (c.tie_word_embeddings) CHECK(loaded.shared.size() == 0);  // its rows read from the packed copy
            const auto a = translate_sources(loaded, sources, opt), b = translate_sources(after, sources, opt);
            for (std::size_t i = 0; i < sources.size(); ++i) {
                CHECK(a[i][0].ids == b[i][0].ids);
                CHECK(a[i][0].score == b[i][0].score);
                if (t == ComputeType::Float32) {
                    CHECK(a[i][0].ids == reference[i][0].ids);
                    CHECK(a[i][0].score == doctest::Approx(reference[i][0].score).epsilon(1e-5));
                }
            }
            CHECK_THROWS_AS(pack_for_inference(loaded, t), Error);
            CHECK(tfm_test::error_of([&] { save_model_weights("/nonexistent/x.safetensors", loaded); }).find("packed") !=
                  std::string::npos);
            if (t == ComputeType::Int8) {  // a file stored as int8 gives the same int8 model as the fp32 one
                tfm_test::TempDir tmp;
                save_model_weights(tmp.file("q.safetensors"), load_model_weights(c, file), "I8");
                const auto q = translate_sources(load_model_weights(c, SafeTensors::open(tmp.file("q.safetensors")), t),
                                                 sources, opt);
                for (std::size_t i = 0; i < sources.size(); ++i) {
                    CHECK(q[i][0].ids == a[i][0].ids);
                    CHECK(q[i][0].score == a[i][0].score);
                }
                // NaN in a weight: int8 cannot hold it; the error names the file, tensor and row.
                Model bad = load_model_weights(c, file);
                bad.encoder[0].ffn.fc1.weight(3, 1) = std::nanf("");
                save_model_weights(tmp.file("nan.safetensors"), bad);
                const std::string e = tfm_test::error_of([&] { load_model_weights(c, SafeTensors::open(tmp.file("nan.safetensors")), t); });
                CHECK(e.find("nan.safetensors: tensor 'model.encoder.layers.0.fc1.weight': int8 weights: row 3 ") !=
                      std::string::npos);
            }
        }
    }
}
