// M2M100 / NLLB-200's model as published (model_type m2m_100): its config's conventions,
// fairseq's position table and its counting of positions over the tokens that are not padding,
// a directory written back as m2m_100. The forward, greedy ids and cached decoding against
// PyTorch are test_model.cpp's, variant m2m_100 (tests/golden/make_model_golden.py).
#include <cmath>
#include <fstream>

#include "helpers.hpp"
#include "tfm/decode/generation_settings.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/io/safetensors.hpp"
#include "tfm/model/generation.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/model/model.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/model/token_batch.hpp"
#include "tfm/nn/posenc.hpp"

using namespace tfm;
using tfm_test::error_of;

namespace {

const std::string kDir = std::string(TFM_GOLDEN) + "/model_m2m_100";

void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
}

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST_CASE("m2m_100: fairseq's sinusoids, float32 as fairseq computes them") {
    // D = 8: H = 4 frequencies exp(-j ln(10000) / 3), j = 0..3: 1, 10^(-4/3), 10^(-8/3), 10^-4.
    const auto pe = fairseq_sinusoidal_table(3, 8, 2);  // positions 2, 3, 4
    REQUIRE(pe.shape(0) == 3);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t j = 0; j < 4; ++j) {
            const double w = std::pow(10000.0, -double(j) / 3.0), p = double(r + 2);
            CHECK(pe(r, j) == doctest::Approx(std::sin(p * w)).epsilon(1e-6));
            CHECK(pe(r, 4 + j) == doctest::Approx(std::cos(p * w)).epsilon(1e-6));
        }
    const auto odd = fairseq_sinusoidal_table(2, 9, 2);  // odd D: the last column is zero
    CHECK(odd(0, 8) == 0.0f);
    CHECK(odd(1, 8) == 0.0f);
    CHECK(odd(1, 0) == float(std::sin(3.0)));
    CHECK(error_of([] { fairseq_sinusoidal_table(2, 3, 2); }).find("at least 4") != std::string::npos);
}

TEST_CASE("m2m_100: positions count the tokens that are not padding, on either side") {
    TokenBatch right = make_token_batch({{5, 6, 7, 2}, {8, 2}}, 1);
    TokenBatch left = right;
    left.ids = {5, 6, 7, 2, 1, 1, 8, 2};  // the second sentence padded on the left
    const auto pr = batch_positions(right, std::int64_t(1)), pl = batch_positions(left, std::int64_t(1));
    CHECK(pr == std::vector<std::size_t>{0, 1, 2, 3, 0, 1, kNoPosition, kNoPosition});
    CHECK(pl == std::vector<std::size_t>{0, 1, 2, 3, kNoPosition, kNoPosition, 0, 1});
    CHECK(batch_positions(right) == std::vector<std::size_t>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("m2m_100: the config's conventions; the position table an old checkpoint holds is not read") {
    const ModelConfig c = load_config(kDir + "/config.json");
    CHECK(c.norm == NormPlacement::Pre);
    CHECK(c.positions == PositionKind::SinusoidalFairseq);
    CHECK(c.layer_norm_eps == 1e-5f);
    CHECK(c.pad_id == 1);
    CHECK(c.eos_id == 2);
    CHECK(c.decoder_start_id == 2);
    const Model m = load_model_weights(c, SafeTensors::open(kDir + "/model.safetensors"));
    REQUIRE(m.encoder_final_ln);
    REQUIRE(m.decoder_final_ln);
    // Early M2M100 uploads saved fairseq's table as model.{encoder,decoder}.embed_positions.weights
    // ([max_position_embeddings + 2, D]); transformers computes it and so does tfm, whatever the
    // file holds.
    const SafeTensors published = SafeTensors::open(kDir + "/model.safetensors");
    std::vector<FloatArray> held;
    std::vector<NamedTensor> tensors;
    for (const std::string& name : published.names()) held.push_back(published.get(name));
    for (std::size_t i = 0; i < held.size(); ++i)
        tensors.push_back({published.names()[i], held[i].data(), Shape(held[i].shape().begin(), held[i].shape().end())});
    const std::vector<float> junk((c.max_positions + 2) * c.d_model, 7.0f);
    tensors.push_back({"model.encoder.embed_positions.weights", junk.data(), {c.max_positions + 2, c.d_model}});
    tensors.push_back({"model.decoder.embed_positions.weights", junk.data(), {c.max_positions + 2, c.d_model}});
    tfm_test::TempDir tmp;
    save_safetensors(tmp.file("old.safetensors"), tensors);
    const Model old = load_model_weights(c, SafeTensors::open(tmp.file("old.safetensors")));
    const TokenBatch src = make_token_batch({{5, 6, 7, 8, 2}, {9, 2}}, 1);
    EncoderWorkspace ws;
    xt::xtensor<float, 2> a, b;
    encoder_forward(a, m, src, ws);
    encoder_forward(b, old, src, ws);
    CHECK(a == b);
}

TEST_CASE("m2m_100: refused variations, and a directory written back loads as the same model") {
    tfm_test::TempDir tmp;
    std::string cfg = read_text(kDir + "/config.json");
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string s = cfg;
        const auto at = s.find(from);
        REQUIRE(at != std::string::npos);
        s.replace(at, from.size(), to);
        write_text(tmp.file("config.json"), s);
        return error_of([&] { load_config(tmp.file("config.json")); });
    };
    CHECK(with("\"model_type\": \"m2m_100\"", "\"model_type\": \"m2m_100\", \"tfm_norm_placement\": \"post\"")
              .find("pre-norm layers and fairseq's sinusoids") != std::string::npos);
    CHECK(with("\"model_type\": \"m2m_100\"", "\"model_type\": \"nllb_moe\"").find("m2m_100 for M2M100 and NLLB-200") !=
          std::string::npos);
    // Written back: config.json says m2m_100 again, and the model is the same.
    const ModelConfig c = load_config(kDir + "/config.json");
    const std::string json = config_json(c);
    CHECK(json.find("\"model_type\": \"m2m_100\"") != std::string::npos);
    CHECK(json.find("M2M100ForConditionalGeneration") != std::string::npos);
    write_text(tmp.file("config.json"), json);
    const ModelConfig back = load_config(tmp.file("config.json"));
    CHECK(config_json(back) == json);
    CHECK(same_architecture(back, c));
}

// generation_config.json's forced_bos_token_id, as generate() applies it: greedy ids equal the
// PyTorch reference's with HF's ForcedBOSTokenLogitsProcessor (tests/golden/make_model_golden.py).
TEST_CASE("m2m_100: the forced first token of generation_config.json, greedy ids as PyTorch's") {
    const ModelConfig c = load_config(kDir + "/config.json");
    const Model m = load_model_weights(c, SafeTensors::open(kDir + "/model.safetensors"));
    const GenerationConfig g = load_generation_config(kDir, c);
    REQUIRE(g.forced_bos_token_id);
    CHECK(*g.forced_bos_token_id == 5);
    DecodeOptions o;
    o.search.beam = 1;
    apply_generation(o, g, GivenSettings{});
    CHECK(o.forced_first_all == std::optional<std::int64_t>(5));
    const auto io = tfm_test::read_file(std::string(TFM_GOLDEN) + "/model_m2m_100_io.npy");
    const auto forced = tfm_test::read_file(std::string(TFM_GOLDEN) + "/model_m2m_100_forced.npy");
    const IdArray src = as_ids(io[0]), lengths = as_ids(io[1]), want = as_ids(forced[0]);
    std::vector<std::vector<std::int64_t>> sources;
    for (std::size_t b = 0; b < src.shape(0); ++b)
        sources.emplace_back(src.data() + b * src.shape(1), src.data() + b * src.shape(1) + lengths(b));
    const auto hyps = translate_sources(m, sources, o);
    for (std::size_t b = 0; b < sources.size(); ++b) {
        CAPTURE(b);
        std::vector<std::int64_t> expected;
        for (std::size_t i = 0; i < want.shape(1) && want(b, i) >= 0; ++i) expected.push_back(want(b, i));
        CHECK(hyps[b][0].ids == expected);
        CHECK(hyps[b][0].ids.front() == 5);
        CHECK(hyps[b][0].token_logprobs.front() == 0.0f);
    }
    // Given per source, the forced token wins over the directory's; a source without one
    // (negative) gets the directory's; with neither, a source searches freely.
    o.forced_first = {7, -1, 7};
    const auto per_line = translate_sources(m, sources, o);
    CHECK(per_line[0][0].ids.front() == 7);
    CHECK(per_line[2][0].ids.front() == 7);
    CHECK(per_line[1][0].ids == hyps[1][0].ids);
    DecodeOptions free = o;
    free.forced_first_all.reset();
    const auto unforced = translate_sources(m, sources, free);
    CHECK(unforced[0][0].ids.front() == 7);
    free.forced_first.clear();
    CHECK(unforced[1][0].ids == translate_sources(m, {sources[1]}, free)[0][0].ids);
}
