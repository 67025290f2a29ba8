#include "tfm/model/config.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tfm/base/error.hpp"
#include "tfm/io/json.hpp"

namespace tfm {

float ModelConfig::embed_scale() const { return scale_embedding ? std::sqrt(float(d_model)) : 1.0f; }

namespace {

using nlohmann::json;

// A size within the bounds of config.hpp; what the weights hold is checked against it later.
std::size_t size_key(const json& j, const std::string& key, std::size_t hi, const std::string& path) {
    return std::size_t(json_int(j, key, 1, std::int64_t(hi), path));
}

std::string text_key(const json& j, const std::string& key, const std::string& fallback, const std::string& path) {
    return json_has(j, key) ? json_string(j, key, path) : fallback;
}

float probability_key(const json& j, const std::string& key, float fallback, const std::string& path) {
    return json_has(j, key) ? float(json_number(j, key, 0.0, 0.999, path)) : fallback;
}

// The float as the shortest decimal that reads back to it (0.1f -> 0.1, not 0.10000000149).
double shortest(float v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

}  // namespace

ModelConfig load_config(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT)
        throw Error(path + ": cannot open (a model directory needs config.json)");
    const json j = read_json_file(path, std::size_t(1) << 20);
    if (!j.is_object()) throw Error(path + ": not a JSON object");
    ModelConfig c;
    std::string type = text_key(j, "model_type", "marian", path);
    if (type == "bert")
        throw Error(path + ": a BERT-family encoder (model_type \"bert\") has no decoder to translate with: tfm-encode runs it");
    if (type != "marian" && type != "m2m_100")
        throw Error(path + ": model_type " + json_excerpt(type) +
                    " is not supported (marian, m2m_100 for M2M100 and NLLB-200, or bert for tfm-encode)");
    const bool m2m = type == "m2m_100";
    c.d_model = size_key(j, "d_model", kMaxModelDim, path);
    c.encoder_layers = size_key(j, "encoder_layers", kMaxLayers, path);
    c.decoder_layers = size_key(j, "decoder_layers", kMaxLayers, path);
    c.encoder_heads = size_key(j, "encoder_attention_heads", kMaxModelDim, path);
    c.decoder_heads = size_key(j, "decoder_attention_heads", kMaxModelDim, path);
    c.encoder_ffn = size_key(j, "encoder_ffn_dim", kMaxFfn, path);
    c.decoder_ffn = size_key(j, "decoder_ffn_dim", kMaxFfn, path);
    c.vocab_size = size_key(j, "vocab_size", kMaxVocab, path);
    c.max_positions = size_key(j, "max_position_embeddings", kMaxPositions, path);
    try {
        c.activation = parse_activation(json_string(j, "activation_function", path));
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    c.scale_embedding = json_bool(j, "scale_embedding", path);
    const auto max_id = std::int64_t(kMaxVocab) - 1;
    c.pad_id = json_int(j, "pad_token_id", 0, max_id, path);
    c.eos_id = json_int(j, "eos_token_id", 0, max_id, path);
    c.decoder_start_id = json_int(j, "decoder_start_token_id", 0, max_id, path);
    c.tie_word_embeddings = json_has(j, "tie_word_embeddings") ? json_bool(j, "tie_word_embeddings", path) : true;
    c.share_embeddings = json_has(j, "share_encoder_decoder_embeddings")
                             ? json_bool(j, "share_encoder_decoder_embeddings", path)
                             : true;
    if (json_has(j, "decoder_vocab_size")) c.decoder_vocab_size = size_key(j, "decoder_vocab_size", kMaxVocab, path);
    c.dropout = probability_key(j, "dropout", 0.1f, path);
    c.attention_dropout = probability_key(j, "attention_dropout", 0.0f, path);
    c.activation_dropout = probability_key(j, "activation_dropout", 0.0f, path);
    // Our own keys; absent means HF's behaviour for the model type: Marian's post-norm and
    // sinusoids in halves, or M2M100's (NLLB-200's) pre-norm with final LayerNorms and
    // fairseq's sinusoids. An M2M100 config has no choice of them.
    std::string pos = text_key(j, "tfm_position_encoding", m2m ? "sinusoidal_fairseq" : "sinusoidal_halves", path);
    if (pos == "sinusoidal_halves") c.positions = PositionKind::SinusoidalHalves;
    else if (pos == "sinusoidal_interleaved") c.positions = PositionKind::SinusoidalInterleaved;
    else if (pos == "learned") c.positions = PositionKind::Learned;
    else if (pos == "sinusoidal_fairseq") c.positions = PositionKind::SinusoidalFairseq;
    else throw Error(path + ": tfm_position_encoding " + json_excerpt(pos) + " (sinusoidal_halves, sinusoidal_interleaved, learned, sinusoidal_fairseq)");
    std::string norm = text_key(j, "tfm_norm_placement", m2m ? "pre" : "post", path);
    if (norm == "post") c.norm = NormPlacement::Post;
    else if (norm == "pre") c.norm = NormPlacement::Pre;
    else throw Error(path + ": tfm_norm_placement " + json_excerpt(norm) + " (post or pre)");
    if (m2m && (c.positions != PositionKind::SinusoidalFairseq || c.norm != NormPlacement::Pre))
        throw Error(path + ": an m2m_100 model has pre-norm layers and fairseq's sinusoids; tfm_position_encoding "
                    "and tfm_norm_placement cannot change them");
    if (json_has(j, "tfm_layer_norm_eps"))
        c.layer_norm_eps = float(json_number(j, "tfm_layer_norm_eps", 1e-12, 0.1, path));
    try {
        validate_config(c);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    return c;
}

void validate_config(const ModelConfig& c) {
    auto heads = [](std::size_t d, std::size_t h, const char* key) {
        if (h == 0 || d % h != 0)
            throw Error("d_model=" + std::to_string(d) + " is not divisible by " + key + "=" + std::to_string(h));
    };
    heads(c.d_model, c.encoder_heads, "encoder_attention_heads");
    heads(c.d_model, c.decoder_heads, "decoder_attention_heads");
    if (c.share_embeddings && c.target_vocab() != c.vocab_size)
        throw Error("share_encoder_decoder_embeddings needs decoder_vocab_size=" + std::to_string(c.target_vocab()) +
                    " equal to vocab_size=" + std::to_string(c.vocab_size));
    auto id = [&](std::int64_t v, const char* key) {
        const std::size_t n = std::min(c.source_vocab(), c.target_vocab());
        if (v < 0 || std::size_t(v) >= n)
            throw Error(std::string(key) + "=" + std::to_string(v) + " is outside the vocabulary of " +
                        std::to_string(n));
    };
    id(c.pad_id, "pad_token_id");
    id(c.eos_id, "eos_token_id");
    id(c.decoder_start_id, "decoder_start_token_id");
    if (!(c.layer_norm_eps > 0 && c.layer_norm_eps <= 0.1f)) throw Error("tfm_layer_norm_eps must be in (0, 0.1]");
    if (c.positions == PositionKind::SinusoidalFairseq && c.d_model < 4)
        throw Error("fairseq's sinusoidal positions need d_model of at least 4, got " + std::to_string(c.d_model));
    if (c.positions != PositionKind::Learned && c.max_positions * c.d_model > (std::size_t(1) << 28))
        throw Error("max_position_embeddings=" + std::to_string(c.max_positions) + " x d_model=" +
                    std::to_string(c.d_model) + " is a sinusoid table of more than 2^28 values");
    for (float p : {c.dropout, c.attention_dropout, c.activation_dropout})
        if (!(p >= 0 && p < 1)) throw Error("dropout probabilities must be in [0, 1)");
}

std::string config_json(const ModelConfig& c) {
    json j;
    // M2M100's layout (pre-norm, fairseq's sinusoids) is written as HF's m2m_100, which reads
    // it; anything else as Marian with tfm's keys for what HF Marian cannot say.
    const bool m2m = c.positions == PositionKind::SinusoidalFairseq && c.norm == NormPlacement::Pre;
    j["model_type"] = m2m ? "m2m_100" : "marian";
    j["architectures"] = {m2m ? "M2M100ForConditionalGeneration" : "MarianMTModel"};
    j["d_model"] = c.d_model;
    j["encoder_layers"] = c.encoder_layers;
    j["decoder_layers"] = c.decoder_layers;
    j["encoder_attention_heads"] = c.encoder_heads;
    j["decoder_attention_heads"] = c.decoder_heads;
    j["encoder_ffn_dim"] = c.encoder_ffn;
    j["decoder_ffn_dim"] = c.decoder_ffn;
    j["vocab_size"] = c.vocab_size;
    j["max_position_embeddings"] = c.max_positions;
    j["activation_function"] = activation_name(c.activation);
    j["scale_embedding"] = c.scale_embedding;
    j["tie_word_embeddings"] = c.tie_word_embeddings;
    j["share_encoder_decoder_embeddings"] = c.share_embeddings;
    j["decoder_vocab_size"] = c.target_vocab();
    j["pad_token_id"] = c.pad_id;
    j["eos_token_id"] = c.eos_id;
    j["decoder_start_token_id"] = c.decoder_start_id;
    j["forced_eos_token_id"] = c.eos_id;
    j["dropout"] = shortest(c.dropout);
    j["attention_dropout"] = shortest(c.attention_dropout);
    j["activation_dropout"] = shortest(c.activation_dropout);
    j["tfm_position_encoding"] = c.positions == PositionKind::Learned            ? "learned"
                                 : c.positions == PositionKind::SinusoidalHalves  ? "sinusoidal_halves"
                                 : c.positions == PositionKind::SinusoidalFairseq ? "sinusoidal_fairseq"
                                                                                  : "sinusoidal_interleaved";
    j["tfm_norm_placement"] = c.norm == NormPlacement::Post ? "post" : "pre";
    j["tfm_layer_norm_eps"] = shortest(c.layer_norm_eps);
    return j.dump(2) + "\n";
}

bool same_architecture(const ModelConfig& a, const ModelConfig& b) {
    ModelConfig x = a;
    x.dropout = b.dropout, x.attention_dropout = b.attention_dropout, x.activation_dropout = b.activation_dropout;
    return config_json(x) == config_json(b);
}

ModelConfig preset_config(const std::string& name, std::size_t vocab_size) {
    ModelConfig c;
    std::size_t n, d, h, f;
    if (name == "base") n = 6, d = 512, h = 8, f = 2048;
    else if (name == "big") n = 6, d = 1024, h = 16, f = 4096;
    else if (name == "small") n = 3, d = 256, h = 4, f = 1024;
    else if (name == "tiny") n = 2, d = 32, h = 4, f = 64;
    else throw UsageError("unknown preset '" + name + "' (base, big, small, tiny)");
    c.d_model = d;
    c.encoder_layers = c.decoder_layers = n;
    c.encoder_heads = c.decoder_heads = h;
    c.encoder_ffn = c.decoder_ffn = f;
    c.vocab_size = vocab_size;
    c.max_positions = 512;
    c.activation = Activation::Relu;
    c.positions = PositionKind::SinusoidalInterleaved;
    c.norm = NormPlacement::Post;
    c.layer_norm_eps = 1e-6f;
    c.pad_id = 0;
    c.eos_id = 1;
    c.decoder_start_id = 0;
    return c;
}

}  // namespace tfm
