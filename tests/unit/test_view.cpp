// tfm-view's library side: the step data of an attention forward, the views of a translation
// model and of tfm-attend's computation, the page's encoding (base64 by RFC 4648's vectors,
// float16 by IEEE 754's, the arrays deflated), and the page's safety against markup in tokens.
#include <cmath>
#include <cstring>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "tfm/base/base64.hpp"
#include "tfm/base/half.hpp"
#include "tfm/base/random.hpp"
#include "tfm/view/page.hpp"

namespace view_tests {

using namespace tfm;

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = float(rng.uniform() * 2 - 1);
    return v;
}

// Random dot-product self-attention over t rows of width d, 2 heads: its input, its
// parameters and the view tfm-attend's computation gives of it.
struct SelfAttention {
    std::size_t t, d;
    MultiHeadConfig cfg;
    MultiHeadParams p;
    std::vector<float> x;
    SelfAttention(std::size_t t_, std::size_t d_, std::uint64_t seed) : t(t_), d(d_) {
        cfg.d = d;
        cfg.attention.heads = 2;
        p = random_multihead(cfg, seed);
        x = random_values(t * d, seed + 1);
    }
    ConstMat rows() const { return mat(x.data(), t, d); }
    AttentionView view() const { return view_attention(rows(), rows(), rows(), t, cfg.attention, p, true); }
};

// The JSON of a page's #tfm-data and its inflated #tfm-arrays.
struct PageParts {
    nlohmann::json data;
    std::string arrays;
};

std::string between(const std::string& html, const std::string& open, const std::string& close) {
    const std::size_t a = html.find(open);
    REQUIRE(a != std::string::npos);
    const std::size_t b = html.find(close, a + open.size());
    REQUIRE(b != std::string::npos);
    return html.substr(a + open.size(), b - a - open.size());
}

std::string unbase64(const std::string& s) {
    static const std::string t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned acc = 0;
    int bits = 0;
    for (char c : s) {
        if (c == '=') break;
        acc = (acc << 6) | unsigned(t.find(c));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char((acc >> bits) & 0xff);
        }
    }
    return out;
}

PageParts parts_of(const std::string& html) {
    PageParts p;
    const std::string json_text = between(html, "id=\"tfm-data\">", "</script>");
    CHECK(json_text.find('<') == std::string::npos);  // nothing in the data can close the script
    p.data = nlohmann::json::parse(json_text);
    const std::string packed = unbase64(between(html, "id=\"tfm-arrays\">", "</script>"));
    uLongf size = 64u << 20;
    p.arrays.resize(size);
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(p.arrays.data()), &size, reinterpret_cast<const Bytef*>(packed.data()),
                       uLong(packed.size())) == Z_OK);
    p.arrays.resize(size);
    return p;
}

std::vector<float> f32_array(const PageParts& p, const nlohmann::json& a) {
    REQUIRE(a["dtype"] == "f32");
    std::size_t n = 1;
    for (auto s : a["shape"]) n *= s.get<std::size_t>();
    std::vector<float> v(n);
    std::memcpy(v.data(), p.arrays.data() + a["at"].get<std::size_t>(), n * 4);  // little-endian host
    return v;
}

TEST_CASE("base64: RFC 4648's test vectors") {
    CHECK(base64("") == "");
    CHECK(base64("f") == "Zg==");
    CHECK(base64("fo") == "Zm8=");
    CHECK(base64("foo") == "Zm9v");
    CHECK(base64("foob") == "Zm9vYg==");
    CHECK(base64("fooba") == "Zm9vYmE=");
    CHECK(base64("foobar") == "Zm9vYmFy");
    CHECK(base64(std::string("\xff\x00\x10", 3)) == "/wAQ");
}

TEST_CASE("float16: IEEE 754 binary16 values, rounding to nearest even") {
    CHECK(float_to_half(1.0f) == 0x3c00);
    CHECK(float_to_half(-2.0f) == 0xc000);
    CHECK(float_to_half(65504.0f) == 0x7bff);
    CHECK(float_to_half(65520.0f) == 0x7c00);                   // rounds past the largest: inf
    CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);      // the smallest subnormal
    CHECK(float_to_half(std::ldexp(1.0f, -26)) == 0x0000);      // under half of it
    CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // a tie goes to even
    CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
    CHECK(half_to_float(0x3555) == doctest::Approx(0.333251953125).epsilon(1e-12));
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(std::isinf(half_to_float(0xfc00)));
    CHECK(std::isnan(half_to_float(0x7e00)));
    for (std::uint32_t h = 0; h < 0x7c00; h += 7) CHECK(float_to_half(half_to_float(std::uint16_t(h))) == h);
}

TEST_CASE("attention steps: the scores are the heads' dot products, the output the projection of the context") {
    const std::size_t tq = 4, tk = 5, d = 6, h = 2, dk = 3;
    MultiHeadConfig cfg;
    cfg.d = d;
    cfg.attention.heads = h;
    cfg.attention.causal = true;
    const MultiHeadParams p = random_multihead(cfg, 5);
    const std::vector<float> q = random_values(tq * d, 1), k = random_values(tk * d, 2), v = random_values(tk * d, 3),
                             ctx = random_values(tq * d, 4), w = random_values(h * tq * tk, 6);
    const AttentionSteps s = attention_steps(1, mat(q.data(), tq, d), mat(k.data(), tk, d), mat(v.data(), tk, d),
                                             mat(ctx.data(), tq, d), w.data(), tk, cfg.attention, p);
    CHECK(s.layer == 1);
    CHECK(s.scale == doctest::Approx(1 / std::sqrt(3.0)));
    REQUIRE(s.scores.shape == std::vector<std::size_t>{h, tq, tk});
    for (std::size_t hh = 0; hh < h; ++hh)
        for (std::size_t i = 0; i < tq; ++i)
            for (std::size_t j = 0; j < tk; ++j) {
                const float got = s.scores.values[(hh * tq + i) * tk + j];
                if (j > i + (tk - tq)) {  // the causal mask, keys aligned to the end
                    CHECK(got == -INFINITY);
                    continue;
                }
                double dot = 0;
                for (std::size_t c = hh * dk; c < (hh + 1) * dk; ++c) dot += double(q[i * d + c]) * k[j * d + c];
                CHECK(got == doctest::Approx(dot).epsilon(1e-6));
            }
    for (std::size_t i = 0; i < tq; ++i)
        for (std::size_t o = 0; o < d; ++o) {
            double y = p.out->bias.size() ? p.out->bias(o) : 0.0;
            for (std::size_t c = 0; c < d; ++c) y += double(ctx[i * d + c]) * p.out->weight(o, c);
            CHECK(s.output.values[i * d + o] == doctest::Approx(y).epsilon(1e-5));
        }
    CHECK(s.weights.values == w);
    CHECK(s.q.values == q);
}

TEST_CASE("view_attention: tfm-attend's output and weights, the projections it made") {
    const SelfAttention a(6, 8, 9);
    const std::size_t t = a.t, d = a.d;
    const std::vector<float>& x = a.x;
    std::vector<float> y(t * d), w(2 * t * t);
    MultiHeadWorkspace ws;
    multihead_forward(mat(y.data(), t, d), w.data(), a.rows(), a.rows(), a.rows(), PrefixMask{t, false}, a.cfg.attention,
                      a.p, ws);
    const AttentionView v = a.view();
    const MultiHeadParams& p = a.p;
    REQUIRE(v.blocks.size() == 1);
    const AttentionSteps& s = *v.blocks[0].steps;
    CHECK(s.output.values == y);
    CHECK(s.weights.values == w);
    CHECK(v.blocks[0].layers.at(0).values == w);
    std::vector<float> q(t * d);
    linear_forward(mat(q.data(), t, d), mat(x.data(), t, d), *p.q);
    CHECK(s.q.values == q);
    CHECK(v.tokens.at(0).size() == t);
    CHECK(v.embeddings.at(0).sum.values == x);
}

TEST_CASE("view_translation: every block and layer, the encoder's weights as tfm-encode computes them") {
    const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    const ModelConfig& c = md.model.config;
    ViewOptions o;
    o.step_layer = 1;
    o.decode.search.beam = 1;
    const AttentionView v = view_translation(md, "Ein Hund rennt im Park.", o);
    REQUIRE(v.blocks.size() == 3);
    const std::size_t s = v.tokens.at(0).size(), t = v.tokens.at(1).size();
    CHECK(v.tokens[0].back() == "</s>");
    CHECK(v.title.size() > 0);
    const SourceIds ids = source_ids(md.tokenizer, "Ein Hund rennt im Park.", c);
    CHECK(ids.ids.size() == s);
    EncodedCapture cap;
    for (std::size_t l = 0; l < c.encoder_layers; ++l) cap.layers.push_back(l);
    encode_sources(md.model, {ids.ids}, 1, &cap);
    for (std::size_t l = 0; l < c.encoder_layers; ++l) {
        const std::vector<float>& got = v.blocks[0].layers.at(l).values;
        REQUIRE(got.size() == cap.weights[0][l].size());
        for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(cap.weights[0][l].data()[i]).epsilon(1e-5));
    }
    const std::size_t tq[3] = {s, t, t}, tk[3] = {s, t, s};
    for (std::size_t b = 0; b < 3; ++b) {
        const AttentionBlock& blk = v.blocks[b];
        CAPTURE(blk.name);
        CHECK(blk.layers.size() == (b == 0 ? c.encoder_layers : c.decoder_layers));
        REQUIRE(blk.steps);
        CHECK(blk.steps->layer == 1);
        CHECK(blk.steps->weights.values == blk.layers[1].values);
        CHECK(blk.steps->q.shape == std::vector<std::size_t>{tq[b], c.d_model});
        CHECK(blk.steps->k.shape == std::vector<std::size_t>{tk[b], c.d_model});
        for (std::size_t r = 0; r < blk.heads * tq[b]; ++r) {  // every row a distribution
            double sum = 0;
            for (std::size_t j = 0; j < tk[b]; ++j) sum += blk.layers[0].values[r * tk[b] + j];
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
    }
    CHECK(v.blocks[1].causal);
    CHECK(v.blocks[1].steps->scores.values[1] == -INFINITY);  // head 0, query 0 cannot see key 1
    // The inputs: X = token embedding * sqrt(D) + position (the engine may fuse the sum).
    const StackInputs& in = v.embeddings.at(0);
    for (std::size_t i = 0; i < in.sum.values.size(); ++i)
        CHECK(in.sum.values[i] == doctest::Approx(in.token.values[i] + in.position.values[i]).epsilon(1e-5));
    ViewOptions bad = o;
    bad.step_layer = c.encoder_layers;
    CHECK_THROWS_WITH_AS(view_translation(md, "Hund", bad), doctest::Contains("the encoder has 3 layers"), UsageError);
    CHECK_THROWS_AS(view_translation(md, "", o), UsageError);
    ViewOptions cut = o;
    cut.max_tokens = 3;
    const AttentionView short_view = view_translation(md, "Ein Hund rennt im Park.", cut);
    CHECK(short_view.tokens[0].size() == 3);
    CHECK(short_view.tokens[1].size() <= 4);
    REQUIRE(!short_view.notes.empty());
    CHECK(short_view.notes[0].find("the source cut to 3 tokens") == 0);
}

TEST_CASE("explorer_page: offline, its data intact, markup in tokens harmless, compact pages smaller") {
    AttentionView v = SelfAttention(5, 8, 3).view();
    v.title = "</script><b>";
    v.tokens[0][1] = "</script><script>alert(1)</script>";
    v.tokens[0][2] = std::string("bad \xff utf-8");
    const Page page = explorer_page(v, PagePrecision::Auto);
    CHECK_FALSE(page.compact);
    const std::string& h = page.html;
    CHECK(h.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
    CHECK(h.find("<title>tfm-view: &lt;/script&gt;&lt;b&gt;</title>") != std::string::npos);
    std::size_t closes = 0;
    for (std::size_t at = h.find("</script>"); at != std::string::npos; at = h.find("</script>", at + 1)) ++closes;
    CHECK(closes == 3);  // the data, the arrays, the script: no token closes one
    const PageParts parts = parts_of(h);
    CHECK(parts.data["tokens"][0][1] == "</script><script>alert(1)</script>");
    CHECK(parts.data["tokens"][0][2].get<std::string>().find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD
    const nlohmann::json& steps = parts.data["blocks"][0]["steps"];
    CHECK(f32_array(parts, steps["output"]) == v.blocks[0].steps->output.values);
    CHECK(f32_array(parts, parts.data["blocks"][0]["layers"][0]) == v.blocks[0].layers[0].values);
    CHECK(parts.data["digits"] == 4);

    const Page small = explorer_page(v, PagePrecision::Float16);
    CHECK(small.compact);
    const PageParts sp = parts_of(small.html);
    CHECK(sp.arrays.size() < parts.arrays.size());
    CHECK(sp.data["blocks"][0]["layers"][0]["dtype"] == "u16");
    CHECK(sp.data["blocks"][0]["steps"]["q"]["dtype"] == "f16");
    CHECK(sp.data["blocks"][0]["steps"]["weights"]["dtype"] == "f32");  // the softmax stays exact
    CHECK(sp.data["notes"].back().get<std::string>().find("the page is compact") == 0);
    // u16 weights: n / 65535 within half a step.
    const nlohmann::json& w16 = sp.data["blocks"][0]["layers"][0];
    const std::size_t at = w16["at"];
    for (std::size_t i = 0; i < v.blocks[0].layers[0].values.size(); ++i) {
        const unsigned n = unsigned(std::uint8_t(sp.arrays[at + 2 * i])) | unsigned(std::uint8_t(sp.arrays[at + 2 * i + 1])) << 8;
        CHECK(std::abs(n / 65535.0 - v.blocks[0].layers[0].values[i]) <= 0.5 / 65535 + 1e-9);
    }
    CHECK_THROWS_AS(parse_page_precision("float64"), UsageError);
    CHECK(parse_page_precision("float16") == PagePrecision::Float16);
}

TEST_CASE("view_weights: layers of one shape, labels that fit, one token list for self-attention") {
    const ViewArray a{{2, 3, 3}, random_values(18, 1)}, b{{2, 3, 3}, random_values(18, 2)};
    const AttentionView self = view_weights({a, b}, {"x", "y", "z"}, {"x", "y", "z"});
    CHECK(self.tokens.size() == 1);
    CHECK(self.blocks.at(0).layers.size() == 2);
    CHECK(self.blocks[0].heads == 2);
    CHECK_FALSE(self.blocks[0].steps);
    const AttentionView cross = view_weights({a}, {}, {"k0", "k1", "key"});
    CHECK(cross.tokens.size() == 2);
    CHECK(cross.tokens[0] == std::vector<std::string>{"q0", "q1", "q2"});
    const ViewArray one_head{{3, 4}, random_values(12, 3)};
    CHECK(view_weights({one_head}, {}, {}).blocks[0].layers[0].shape == std::vector<std::size_t>{1, 3, 4});
    CHECK_THROWS_WITH_AS(view_weights({a, one_head}, {}, {}), doctest::Contains("layer 1: weights of another shape"), Error);
    CHECK_THROWS_WITH_AS(view_weights({a}, {}, {"a", "b"}), doctest::Contains("keys: 2 labels for 3 tokens"), Error);
    CHECK_THROWS_AS(view_weights({}, {}, {}), Error);
    CHECK_THROWS_AS(view_weights({ViewArray{{2, 0, 3}, {}}}, {}, {}), Error);
}

}  // namespace view_tests
