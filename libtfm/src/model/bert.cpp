#include "tfm/model/bert.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <type_traits>

#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/safetensors.hpp"
#include "tfm/io/torch_checkpoint.hpp"

namespace tfm {

namespace {

std::size_t size_key(const Json& j, const char* key, std::size_t hi, const std::string& path) {
    return std::size_t(json_int(j, key, 1, std::int64_t(hi), path));
}

// The name a tensor has in the file: with or without "bert.", LayerNorm's weight/bias or
// gamma/beta; empty when none is there.
std::string find_name(const TensorFile& f, const std::string& name) {
    std::vector<std::string> candidates{name, "bert." + name};
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"LayerNorm.weight", "LayerNorm.gamma"},
                                   {"LayerNorm.bias", "LayerNorm.beta"}})
        if (name.size() >= from.size() && name.compare(name.size() - from.size(), from.size(), from) == 0) {
            const std::string old = name.substr(0, name.size() - from.size()) + to;
            candidates.push_back(old);
            candidates.push_back("bert." + old);
        }
    for (const auto& c : candidates)
        if (f.contains(c)) return c;
    return "";
}

}  // namespace

bool is_bert_dir(const std::string& dir) {
    const std::string path = dir + "/config.json";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    try {
        const Json j = read_json_file(path, std::size_t(1) << 20);
        return j.is_object() && j.contains("model_type") && j["model_type"] == "bert";
    } catch (const Error&) {
        return false;  // load_model_dir reports what is wrong with it
    }
}

BertModel bert_skeleton(const std::string& path) {
    const Json j = read_json_file(path, std::size_t(1) << 20);
    if (!j.is_object()) throw Error(path + ": not a JSON object");
    BertModel m;
    ModelConfig& c = m.config;
    c.d_model = size_key(j, "hidden_size", kMaxModelDim, path);
    c.encoder_layers = size_key(j, "num_hidden_layers", kMaxLayers, path);
    c.encoder_heads = c.decoder_heads = size_key(j, "num_attention_heads", kMaxModelDim, path);
    c.encoder_ffn = size_key(j, "intermediate_size", kMaxFfn, path);
    c.vocab_size = size_key(j, "vocab_size", kMaxVocab, path);
    c.max_positions = size_key(j, "max_position_embeddings", kMaxPositions, path);
    m.type_vocab_size = json_has(j, "type_vocab_size") ? size_key(j, "type_vocab_size", 1024, path) : 2;
    const std::string act = json_has(j, "hidden_act") ? json_string(j, "hidden_act", path) : "gelu";
    if (act != "gelu")  // BERT's is the exact (erf) GELU; the tanh approximations would differ
        throw Error(path + ": hidden_act " + json_excerpt(act) + " is not supported (gelu)");
    c.activation = Activation::Gelu;
    c.layer_norm_eps = json_has(j, "layer_norm_eps") ? float(json_number(j, "layer_norm_eps", 1e-12, 0.1, path)) : 1e-12f;
    c.pad_id = json_has(j, "pad_token_id") ? json_int(j, "pad_token_id", 0, std::int64_t(c.vocab_size) - 1, path) : 0;
    c.positions = PositionKind::Learned;
    c.norm = NormPlacement::Post;
    c.scale_embedding = false;
    if (json_has(j, "position_embedding_type") && json_string(j, "position_embedding_type", path) != "absolute")
        throw Error(path + ": position_embedding_type " + json_excerpt(j["position_embedding_type"]) +
                    " is not supported (absolute)");
    if (c.d_model % c.encoder_heads != 0)
        throw Error(path + ": hidden_size=" + std::to_string(c.d_model) + " is not divisible by num_attention_heads=" +
                    std::to_string(c.encoder_heads));
    return m;
}

void load_bert_weights(BertModel& m, const TensorFile& f) {
    const ModelConfig& c = m.config;
    const std::size_t d = c.d_model;
    auto get = [&](const std::string& name, auto& t, const Shape& shape) {
        const std::string found = find_name(f, name);
        if (found.empty()) throw Error(f.path() + ": no tensor '" + name + "' (nor 'bert." + name + "')");
        const FloatArray a = f.get(found, shape);
        std::array<std::size_t, std::remove_reference_t<decltype(t)>::rank> sh{};
        std::copy(shape.begin(), shape.end(), sh.begin());
        t = std::remove_reference_t<decltype(t)>::from_shape(sh);
        std::copy(a.begin(), a.end(), t.begin());
    };
    auto linear = [&](const std::string& name, Linear& l, std::size_t out, std::size_t in) {
        get(name + ".weight", l.weight, {out, in});
        get(name + ".bias", l.bias, {out});
    };
    auto norm = [&](const std::string& name, LayerNorm& ln) {
        get(name + ".weight", ln.gamma, {d});
        get(name + ".bias", ln.beta, {d});
        ln.eps = c.layer_norm_eps;
    };
    // The sizes first: a config claiming absurd sizes fails on shapes, not on memory.
    get("embeddings.word_embeddings.weight", m.word, {c.vocab_size, d});
    get("embeddings.position_embeddings.weight", m.position, {c.max_positions, d});
    get("embeddings.token_type_embeddings.weight", m.token_type, {m.type_vocab_size, d});
    norm("embeddings.LayerNorm", m.embed_ln);
    m.layers.resize(c.encoder_layers);
    for (std::size_t l = 0; l < c.encoder_layers; ++l) {
        const std::string p = "encoder.layer." + std::to_string(l);
        EncoderLayer& e = m.layers[l];
        e.self_attn.q = e.self_attn.k = e.self_attn.v = e.self_attn.out = Linear{};
        linear(p + ".attention.self.query", *e.self_attn.q, d, d);
        linear(p + ".attention.self.key", *e.self_attn.k, d, d);
        linear(p + ".attention.self.value", *e.self_attn.v, d, d);
        linear(p + ".attention.output.dense", *e.self_attn.out, d, d);
        norm(p + ".attention.output.LayerNorm", e.self_attn_ln);
        linear(p + ".intermediate.dense", e.ffn.fc1, c.encoder_ffn, d);
        linear(p + ".output.dense", e.ffn.fc2, d, c.encoder_ffn);
        norm(p + ".output.LayerNorm", e.final_ln);
    }
    if (!find_name(f, "pooler.dense.weight").empty()) {
        m.pooler = Linear{};
        linear("pooler.dense", *m.pooler, d, d);
    }
}

BertInput bert_input(const WordPiece& tok, std::string_view a, const std::string_view* b, std::size_t max_positions,
                     std::size_t max_tokens) {
    const std::size_t specials = b ? 3 : 2;
    const std::size_t cap = std::max(max_tokens ? std::min(max_tokens, max_positions) : max_positions, specials);
    // No more text than the tokens kept can spell (normalising is superlinear on some input).
    const std::size_t budget = text_budget(cap);
    const std::string_view a_kept = cut_text(a, budget), b_kept = b ? cut_text(*b, budget) : std::string_view();
    BertInput in;
    in.cap = cap;
    if (a_kept.size() < a.size() || (b && b_kept.size() < b->size())) in.line_bytes = a.size() + (b ? b->size() : 0);
    std::vector<std::int64_t> first = tok.encode(a_kept), second;
    if (b) second = tok.encode(b_kept);
    if (first.empty() && !b) {  // nothing to encode: an empty record
        in.line_bytes = 0;
        return in;
    }
    in.full_length = first.size() + second.size() + specials;
    in.truncated = in.line_bytes != 0;
    while (first.size() + second.size() + specials > cap) {  // HF's longest_first
        if (first.size() > second.size()) first.pop_back();
        else second.pop_back();
        in.truncated = true;
    }
    in.ids.push_back(tok.cls_id());
    in.ids.insert(in.ids.end(), first.begin(), first.end());
    in.ids.push_back(tok.sep_id());
    in.segments.assign(in.ids.size(), 0);
    if (b) {
        in.ids.insert(in.ids.end(), second.begin(), second.end());
        in.ids.push_back(tok.sep_id());
        in.segments.resize(in.ids.size(), 1);
    }
    return in;
}

void bert_forward(std::vector<float>& x, const BertModel& m, const TokenBatch& src, const std::vector<std::int64_t>& segments,
                  EncoderWorkspace& ws, AttentionCapture* capture, EncoderTrace* trace) {
    const ModelConfig& c = m.config;
    const std::size_t n = src.batch * src.len, d = c.d_model;
    if (segments.size() != n || src.ids.size() != n)
        throw Error("bert: " + std::to_string(segments.size()) + " segment ids for a batch of " + std::to_string(n) + " tokens");
    if (src.len > c.max_positions)
        throw Error("bert: sequences of " + std::to_string(src.len) + " tokens, more than max_position_embeddings=" +
                    std::to_string(c.max_positions));
    for (std::size_t r = 0; r < n; ++r) {
        if (src.ids[r] < 0 || std::size_t(src.ids[r]) >= c.vocab_size)
            throw Error("bert: token id " + std::to_string(src.ids[r]) + " outside the vocabulary of " + std::to_string(c.vocab_size));
        if (segments[r] < 0 || std::size_t(segments[r]) >= m.type_vocab_size)
            throw Error("bert: segment id " + std::to_string(segments[r]) + " outside type_vocab_size=" +
                        std::to_string(m.type_vocab_size));
    }
    x.resize(n * d);
    parallel_for(n, [&](std::size_t r) {  // word + position + segment, then LayerNorm
        const std::size_t pos = r % src.len;
        const std::int64_t id = src.ids[r], seg = segments[r];
        float* row = x.data() + r * d;
        const float *w = m.word.data() + std::size_t(id) * d, *p = m.position.data() + pos * d,
                    *t = m.token_type.data() + std::size_t(seg) * d;
        for (std::size_t j = 0; j < d; ++j) row[j] = w[j] + p[j] + t[j];
    });
    layernorm_forward(mat(x.data(), n, d), mat(x.data(), n, d), m.embed_ln);
    encoder_layers(x, c, m.layers, nullptr, src, ws, capture, trace);
}

BertPooling parse_pooling(const std::string& name) {
    if (name == "cls") return BertPooling::Cls;
    if (name == "mean") return BertPooling::Mean;
    if (name == "pooler") return BertPooling::Pooler;
    throw UsageError("unknown pooling '" + name + "' (cls, mean, pooler)");
}

void pool(float* out, ConstMat h, BertPooling how, const Linear* pooler) {
    const std::size_t d = h.cols;
    if (h.rows == 0) throw Error("pooling an empty sequence");
    switch (how) {
        case BertPooling::Cls:
            std::copy(h.data, h.data + d, out);
            return;
        case BertPooling::Mean: {
            std::vector<double> sum(d, 0.0);
            for (std::size_t i = 0; i < h.rows; ++i)
                for (std::size_t j = 0; j < d; ++j) sum[j] += h.data[i * h.ld + j];
            for (std::size_t j = 0; j < d; ++j) out[j] = float(sum[j] / double(h.rows));
            return;
        }
        case BertPooling::Pooler:
            if (!pooler) throw UsageError("--pool pooler: this model has no pooler weights (pooler.dense)");
            linear_forward(mat(out, 1, d), h.rows_range(0, 1), *pooler);
            tanh_inplace(out, d);
            return;
    }
}

BertDir load_bert_dir(const std::string& dir) {
    BertModel model = bert_skeleton(dir + "/config.json");
    std::string weights;
    const std::string st = dir + "/model.safetensors", pt = dir + "/pytorch_model.bin";
    if (path_present(st)) load_bert_weights(model, SafeTensors::open(weights = st));
    else if (path_present(pt)) load_bert_weights(model, TorchCheckpoint::open(weights = pt));
    else throw Error(dir + ": missing model.safetensors (or pytorch_model.bin)");
    const WordPieceOptions opt = read_wordpiece_options(dir, model.config.vocab_size);
    const std::string vocab = dir + "/vocab.txt";
    if (!path_present(vocab)) throw Error(dir + ": missing vocab.txt (the WordPiece vocabulary of a BERT model)");
    WordPiece tokenizer = WordPiece::load(vocab, opt);
    if (tokenizer.size() > model.config.vocab_size)
        throw Error(vocab + ": " + std::to_string(tokenizer.size()) + " pieces, more than config.json's vocab_size " +
                    std::to_string(model.config.vocab_size));
    if (tokenizer.max_id() >= std::int64_t(model.config.vocab_size))
        throw Error(dir + ": an added token's id " + std::to_string(tokenizer.max_id()) + " is past config.json's vocab_size " +
                    std::to_string(model.config.vocab_size));
    return {dir, weights, std::move(model), std::move(tokenizer)};
}

}  // namespace tfm
