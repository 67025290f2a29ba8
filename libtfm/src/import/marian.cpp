#include "tfm/import/marian.hpp"

#include <dirent.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/dir_guard.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/npz.hpp"
#include "tfm/model/generation.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

namespace {

constexpr const char* kConfigArray = "special:model.yml";
constexpr std::size_t kMaxYamlBytes = std::size_t(256) << 20;

YAML::Node parse_yaml(const std::string& text, const std::string& where) {
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw Error(where + ": not valid YAML (" + e.what() + ")");
    }
}

// Marian's options (special:model.yml): typed getters that name the key and the file.
struct Options {
    YAML::Node node;
    std::string where;

    bool has(const char* key) const { return node[key].IsDefined() && !node[key].IsNull(); }
    template <class T>
    T get(const char* key, const T& fallback) const {
        if (!has(key)) return fallback;
        try {
            return node[key].as<T>();
        } catch (const YAML::Exception&) {
            throw Error(where + ": option " + key + " has an unexpected value");
        }
    }
    std::size_t size(const char* key, std::size_t hi) const {
        if (!has(key)) throw Error(where + ": option " + key + " is missing");
        const long long v = get<long long>(key, 0);
        if (v < 1 || std::size_t(v) > hi) throw Error(where + ": option " + key + "=" + std::to_string(v) + " is out of range");
        return std::size_t(v);
    }
    // The option must have the value tfm runs (or be absent, when Marian's default is it).
    void require(const char* key, const std::string& value, const std::string& why) const {
        const std::string v = get<std::string>(key, value);
        if (v != value) throw Error(where + ": " + key + ": " + json_excerpt(v) + " is not supported (" + why + ")");
    }
};

std::string basename_of(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

std::vector<std::string> list_dir(const std::string& dir) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (!d) throw Error(dir + ": cannot read the directory: " + std::strerror(errno));
    while (dirent* e = ::readdir(d)) out.push_back(e->d_name);
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// decoder.yml names files relative to its directory (relative-paths: true) or absolutely
// (then the release has usually been moved: the file of that name beside it).
std::string resolve(const std::string& dir, const std::string& name) {
    if (!name.empty() && name[0] != '/') return dir + "/" + name;
    return path_present(name) ? name : dir + "/" + basename_of(name);
}

std::string only_file(const std::string& dir, const std::vector<std::string>& names, const std::string& suffix,
                      const std::string& what) {
    std::vector<std::string> found;
    for (const auto& n : names)
        if (ends_with(n, suffix)) found.push_back(n);
    if (found.size() != 1)
        throw Error(dir + ": " + std::to_string(found.size()) + " files *" + suffix + " and no decoder.yml to say which " +
                    what + " to use");
    return dir + "/" + found[0];
}

// A Marian vocabulary: piece -> id (.yml/.yaml, .json) or a SentencePiece model (.spm).
struct Vocab {
    std::string path;
    std::map<std::string, std::int64_t> ids;
};

// A piece must be valid UTF-8: it is written to vocab.json, and compared with the text's.
void check_piece(const std::string& piece, const std::string& path) {
    std::size_t bad = 0;
    sanitize_utf8(piece, &bad);
    if (bad) throw Error(path + ": piece " + json_excerpt(sanitize_utf8(piece)) + " is not valid UTF-8");
}

Vocab read_vocab(const std::string& path, std::size_t size) {
    Vocab v{path, {}};
    if (ends_with(path, ".spm") || ends_with(path, ".model")) {
        const auto pieces = spm_pieces(path);
        for (std::size_t i = 0; i < pieces.size(); ++i) v.ids.emplace(pieces[i], std::int64_t(i));
    } else if (ends_with(path, ".json")) {
        const Json j = read_json_file(path, kMaxYamlBytes);
        if (!j.is_object()) throw Error(path + ": not a JSON object of piece -> id");
        for (auto& [piece, id] : j.items()) {
            if (!id.is_number_integer()) throw Error(path + ": piece " + json_excerpt(piece) + " has no integer id");
            check_piece(piece, path);
            v.ids.emplace(piece, id.get<std::int64_t>());
        }
    } else {
        const YAML::Node n = parse_yaml(read_regular_file(path, kMaxYamlBytes), path);
        if (!n.IsMap()) throw Error(path + ": not a YAML map of piece -> id");
        for (const auto& kv : n) {
            std::string piece;
            std::int64_t id = 0;
            try {
                piece = kv.first.as<std::string>();
                id = kv.second.as<std::int64_t>();
            } catch (const YAML::Exception&) {
                throw Error(path + ": an entry is not piece: id");
            }
            check_piece(piece, path);
            v.ids.emplace(std::move(piece), id);
        }
    }
    std::set<std::int64_t> seen;
    for (const auto& [piece, id] : v.ids) {
        if (id < 0 || std::size_t(id) >= size)
            throw Error(path + ": piece " + json_excerpt(piece) + " has id " + std::to_string(id) +
                        " outside the model's vocabulary of " + std::to_string(size));
        if (!seen.insert(id).second) throw Error(path + ": id " + std::to_string(id) + " is given to two pieces");
    }
    for (const char* special : {"</s>", "<unk>"})
        if (!v.ids.count(special)) throw Error(path + ": no " + std::string(special) + " piece");
    return v;
}

// How a tensor of the HF layout and its Marian counterpart relate.
enum class Kind {
    Matrix,     // [out,in] <-> [in,out]
    Row,        // [n] <-> [1,n]
    Embedding,  // [V+1,D] <-> [V,D]: the pad row appended
    Output,     // lm_head [V+1,D] <-> decoder_ff_logit_out_W [D,V]
    Bias,       // final_logits_bias [1,V+1] <-> decoder_ff_logit_out_b [1,V]
};
struct Link {
    std::string hf, marian;
    Kind kind;
    Shape hf_shape;
};

Shape marian_shape(const Link& l) {
    const Shape& s = l.hf_shape;
    switch (l.kind) {
        case Kind::Matrix: return {s[1], s[0]};
        case Kind::Row: return {1, s[0]};
        case Kind::Embedding: return {s[0] - 1, s[1]};
        case Kind::Output: return {s[1], s[0] - 1};
        case Kind::Bias: return {1, s[1] - 1};
    }
    return {};
}

// Every tensor of a post-norm model with sinusoidal positions, by both names.
std::vector<Link> links(const ModelConfig& c) {
    const std::size_t d = c.d_model, v = c.source_vocab(), vt = c.target_vocab();
    std::vector<Link> out;
    if (c.share_embeddings) {
        out.push_back({"model.shared.weight", "Wemb", Kind::Embedding, {vt, d}});
    } else {
        out.push_back({"model.encoder.embed_tokens.weight", "encoder_Wemb", Kind::Embedding, {v, d}});
        out.push_back({"model.decoder.embed_tokens.weight", "decoder_Wemb", Kind::Embedding, {vt, d}});
    }
    if (!c.tie_word_embeddings) out.push_back({"lm_head.weight", "decoder_ff_logit_out_W", Kind::Output, {vt, d}});
    out.push_back({"final_logits_bias", "decoder_ff_logit_out_b", Kind::Bias, {1, vt}});
    auto attention = [&](const std::string& hf, const std::string& mar) {
        for (const char* p : {"q", "k", "v", "o"}) {
            const std::string proj = std::string(p) == "o" ? "out" : p;
            out.push_back({hf + "." + proj + "_proj.weight", mar + "_W" + p, Kind::Matrix, {d, d}});
            out.push_back({hf + "." + proj + "_proj.bias", mar + "_b" + p, Kind::Row, {d}});
        }
    };
    auto norm = [&](const std::string& hf, const std::string& mar) {
        out.push_back({hf + ".weight", mar + "_ln_scale", Kind::Row, {d}});
        out.push_back({hf + ".bias", mar + "_ln_bias", Kind::Row, {d}});
    };
    auto ffn = [&](const std::string& hf, const std::string& mar, std::size_t f) {
        out.push_back({hf + ".fc1.weight", mar + "_ffn_W1", Kind::Matrix, {f, d}});
        out.push_back({hf + ".fc1.bias", mar + "_ffn_b1", Kind::Row, {f}});
        out.push_back({hf + ".fc2.weight", mar + "_ffn_W2", Kind::Matrix, {d, f}});
        out.push_back({hf + ".fc2.bias", mar + "_ffn_b2", Kind::Row, {d}});
        norm(hf + ".final_layer_norm", mar + "_ffn_ffn");
    };
    for (std::size_t l = 0; l < c.encoder_layers; ++l) {
        const std::string hf = "model.encoder.layers." + std::to_string(l), mar = "encoder_l" + std::to_string(l + 1);
        attention(hf + ".self_attn", mar + "_self");
        norm(hf + ".self_attn_layer_norm", mar + "_self_Wo");
        ffn(hf, mar, c.encoder_ffn);
    }
    for (std::size_t l = 0; l < c.decoder_layers; ++l) {
        const std::string hf = "model.decoder.layers." + std::to_string(l), mar = "decoder_l" + std::to_string(l + 1);
        attention(hf + ".self_attn", mar + "_self");
        norm(hf + ".self_attn_layer_norm", mar + "_self_Wo");
        attention(hf + ".encoder_attn", mar + "_context");
        norm(hf + ".encoder_attn_layer_norm", mar + "_context_Wo");
        ffn(hf, mar, c.decoder_ffn);
    }
    return out;
}

// rows x cols (row-major) -> cols x rows.
void transpose(const float* src, float* dst, std::size_t rows, std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t k = 0; k < cols; ++k) dst[k * rows + r] = src[r * cols + k];
}

// The HF tensor of a link from its Marian array.
FloatArray to_hf(const Link& l, const FloatArray& a) {
    const Shape& s = l.hf_shape;
    FloatArray out = xt::zeros<float>(s);
    switch (l.kind) {
        case Kind::Matrix: transpose(a.data(), out.data(), s[1], s[0]); break;
        case Kind::Row:
        case Kind::Embedding:
        case Kind::Bias: std::copy(a.data(), a.data() + a.size(), out.data()); break;  // the pad row/entry stays 0
        case Kind::Output: transpose(a.data(), out.data(), s[1], s[0] - 1); break;
    }
    return out;
}

// The Marian array of a link from its HF tensor.
std::string to_marian(const Link& l, const float* t) {
    const Shape& s = l.hf_shape;
    const Shape ms = marian_shape(l);
    std::vector<float> out(ms[0] * ms[1]);
    switch (l.kind) {
        case Kind::Matrix: transpose(t, out.data(), s[0], s[1]); break;
        case Kind::Row:
        case Kind::Embedding:
        case Kind::Bias: std::copy(t, t + out.size(), out.data()); break;  // the pad row/entry dropped
        case Kind::Output: transpose(t, out.data(), s[0] - 1, s[1]); break;
    }
    return std::string(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(float));
}

// The Marian arrays under their HF names, converted one at a time as load_model_weights asks
// for them (the archive and the model are in memory, never a third copy).
class MarianTensors : public TensorFile {
public:
    MarianTensors(const Npz& npz, const std::vector<Link>& links) : npz_(npz) {
        for (const Link& l : links) links_.emplace(l.hf, l);
    }
    const std::string& path() const override { return npz_.path(); }
    bool contains(const std::string& name) const override { return links_.count(name) != 0; }
    std::vector<std::string> names() const override {
        std::vector<std::string> out;
        for (const auto& kv : links_) out.push_back(kv.first);
        return out;
    }
    Shape shape(const std::string& name) const override { return at(name).hf_shape; }
    FloatArray get(const std::string& name) const override {
        const Link& l = at(name);
        return to_hf(l, npz_.get(l.marian));
    }
    using TensorFile::get;

private:
    const Link& at(const std::string& name) const {
        auto it = links_.find(name);
        if (it == links_.end()) throw Error(npz_.path() + ": no tensor '" + name + "'");
        return it->second;
    }
    const Npz& npz_;
    std::map<std::string, Link> links_;
};

// The architecture special:model.yml describes, checked against what tfm runs.
ModelConfig marian_config(const Options& o) {
    o.require("type", "transformer", "tfm converts Marian transformers");
    o.require("transformer-preprocess", "", "pre-norm Marian models are not converted; OPUS-MT models are post-norm");
    o.require("transformer-postprocess", "dan", "tfm's post-norm sublayer is dropout, add, norm");
    if (o.get<std::string>("transformer-postprocess-emb", "d").find('n') != std::string::npos)
        throw Error(o.where + ": transformer-postprocess-emb with a LayerNorm on the embeddings is not supported");
    o.require("transformer-decoder-autoreg", "self-attention", "average-attention and RNN decoders are not supported");
    if (o.get<long long>("transformer-ffn-depth", 2) != 2 ||
        (o.get<long long>("transformer-decoder-ffn-depth", 0) != 0 && o.get<long long>("transformer-decoder-ffn-depth", 0) != 2))
        throw Error(o.where + ": transformer-ffn-depth other than 2 is not supported");
    if (o.get<bool>("transformer-train-position-embeddings", false))
        throw Error(o.where + ": transformer-train-position-embeddings (learned Wpos) is not supported");
    if (o.get<bool>("transformer-no-projection", false)) throw Error(o.where + ": transformer-no-projection is not supported");
    if (o.get<bool>("right-left", false)) throw Error(o.where + ": right-left (reversed output) models are not supported");
    if (o.has("transformer-tied-layers") && o.node["transformer-tied-layers"].size() > 0)
        throw Error(o.where + ": transformer-tied-layers is not supported");
    ModelConfig c;
    // Marian's sinusoids have no length of their own: tfm gives max(dim-emb, 1024) positions,
    // and that table (positions x dim-emb) must stay within 2^28 values, so dim-emb <= 16384.
    c.d_model = o.size("dim-emb", std::min<std::size_t>(kMaxModelDim, 16384));
    c.encoder_layers = o.size("enc-depth", kMaxLayers);
    c.decoder_layers = o.size("dec-depth", kMaxLayers);
    c.encoder_heads = c.decoder_heads = o.size("transformer-heads", kMaxModelDim);
    c.encoder_ffn = c.decoder_ffn = o.size("transformer-dim-ffn", kMaxFfn);
    if (o.get<long long>("transformer-decoder-dim-ffn", 0) > 0) c.decoder_ffn = o.size("transformer-decoder-dim-ffn", kMaxFfn);
    const std::string act = o.get<std::string>("transformer-ffn-activation", "swish");
    if (act == "swish") c.activation = Activation::Swish;
    else if (act == "relu") c.activation = Activation::Relu;
    else throw Error(o.where + ": transformer-ffn-activation " + json_excerpt(act) + " is not supported (swish, relu)");
    const bool all = o.get<bool>("tied-embeddings-all", false);
    c.share_embeddings = all || o.get<bool>("tied-embeddings-src", false);
    c.tie_word_embeddings = all || o.get<bool>("tied-embeddings", false);
    std::vector<long long> dims;
    if (o.has("dim-vocabs")) dims = o.get<std::vector<long long>>("dim-vocabs", {});
    if (dims.size() != 2 || dims[0] < 2 || dims[1] < 2 || std::size_t(dims[0]) >= kMaxVocab || std::size_t(dims[1]) >= kMaxVocab)
        throw Error(o.where + ": dim-vocabs must be two vocabulary sizes");
    if (dims[0] != dims[1])
        throw Error(o.where + ": dim-vocabs " + std::to_string(dims[0]) + " and " + std::to_string(dims[1]) +
                    " differ; tfm, like transformers, needs one size for both (pad is the id after the last)");
    c.vocab_size = std::size_t(dims[0]) + 1;
    if (!c.share_embeddings) c.decoder_vocab_size = std::size_t(dims[1]) + 1;
    c.max_positions = std::max<std::size_t>(c.d_model, 1024);
    c.scale_embedding = true;
    c.positions = PositionKind::SinusoidalHalves;
    c.norm = NormPlacement::Post;
    c.layer_norm_eps = 1e-6f;
    c.pad_id = c.decoder_start_id = std::int64_t(dims[0]);
    return c;
}

Json vocab_json(const Vocab& v, std::int64_t pad) {
    Json j = Json::object();
    for (const auto& [piece, id] : v.ids) j[piece] = id;
    if (!j.contains("<pad>")) j["<pad>"] = pad;
    return j;
}

}  // namespace

MarianFiles marian_files(const std::string& dir) {
    MarianFiles f;
    f.decoder_yml = dir + "/decoder.yml";
    std::vector<std::string> vocabs;
    if (path_present(f.decoder_yml)) {
        const YAML::Node n = parse_yaml(read_regular_file(f.decoder_yml, kMaxYamlBytes), f.decoder_yml);
        try {
            if (!n["models"] || !n["models"].IsSequence() || n["models"].size() == 0)
                throw Error(f.decoder_yml + ": no models: list");
            f.npz = resolve(dir, n["models"][0].as<std::string>());
            if (n["vocabs"] && n["vocabs"].IsSequence())
                for (const auto& v : n["vocabs"]) vocabs.push_back(resolve(dir, v.as<std::string>()));
        } catch (const YAML::Exception& e) {
            throw Error(f.decoder_yml + ": " + e.what());
        }
        if (vocabs.size() != 2) throw Error(f.decoder_yml + ": vocabs: must list the source and the target vocabulary");
    } else {
        f.decoder_yml.clear();
        const auto names = list_dir(dir);
        f.npz = only_file(dir, names, ".npz", "model");
        bool separate = false;
        for (const auto& n : names) separate = separate || ends_with(n, "src.vocab.yml");
        if (separate) vocabs = {only_file(dir, names, "src.vocab.yml", "vocabulary"), only_file(dir, names, "trg.vocab.yml", "vocabulary")};
        else vocabs = {only_file(dir, names, ".vocab.yml", "vocabulary"), ""};
        if (!separate) vocabs[1] = vocabs[0];
    }
    f.source_vocab = vocabs[0];
    f.target_vocab = vocabs[1];
    f.source_spm = ends_with(f.source_vocab, ".spm") ? f.source_vocab : dir + "/source.spm";
    f.target_spm = ends_with(f.target_vocab, ".spm") ? f.target_vocab : dir + "/target.spm";
    for (const std::string* p : {&f.npz, &f.source_vocab, &f.target_vocab, &f.source_spm, &f.target_spm})
        if (!path_present(*p)) throw Error(dir + ": missing " + *p);
    return f;
}

void import_marian(const std::string& dir, const std::string& out_dir, const std::string& dtype, bool replace) {
    const MarianFiles files = marian_files(dir);
    const Npz npz = Npz::open(files.npz);
    if (!npz.contains(kConfigArray))
        throw Error(files.npz + ": no '" + kConfigArray + "' array: not a Marian model file (or saved without its options)");
    Options opts{parse_yaml(npz.text(kConfigArray), files.npz + ": " + kConfigArray), files.npz + ": " + kConfigArray};
    if (!opts.node.IsMap()) throw Error(opts.where + ": not a YAML map of options");
    ModelConfig c = marian_config(opts);
    const std::size_t v = c.source_vocab() - 1;
    const Vocab src = read_vocab(files.source_vocab, v);
    const Vocab tgt = files.target_vocab == files.source_vocab ? src : read_vocab(files.target_vocab, v);
    if (c.share_embeddings && src.ids != tgt.ids)
        throw Error(files.npz + ": the model shares one embedding table (tied-embeddings-src/all) but " + src.path +
                    " and " + tgt.path + " differ");
    c.eos_id = tgt.ids.at("</s>");
    if (src.ids.at("</s>") != c.eos_id)
        throw Error(src.path + ": </s> has id " + std::to_string(src.ids.at("</s>")) + ", the target vocabulary's is " +
                    std::to_string(c.eos_id) + " (tfm needs one eos id)");
    validate_config(c);

    const std::vector<Link> all = links(c);
    std::set<std::string> used{kConfigArray};
    for (const Link& l : all) {
        if (!npz.contains(l.marian)) throw Error(files.npz + ": no array '" + l.marian + "', which the model's options imply");
        const Shape want = marian_shape(l);
        Shape got = npz.shape(l.marian);
        if (l.kind == Kind::Row && got.size() == 1) got.insert(got.begin(), 1);
        if (got != want)
            throw Error(files.npz + ": array '" + l.marian + "' has shape " + shape_str(npz.shape(l.marian)) + ", expected " +
                        shape_str(want));
        used.insert(l.marian);
    }
    std::string unknown;
    for (const std::string& name : npz.names())
        if (!used.count(name)) unknown += (unknown.empty() ? "" : ", ") + name;
    if (!unknown.empty()) throw Error(files.npz + ": arrays tfm does not know how to convert: " + unknown);
    const Model model = load_model_weights(c, MarianTensors(npz, all));

    GenerationConfig g;
    g.source = files.decoder_yml.empty() ? files.npz : files.decoder_yml;
    g.num_beams = 4;
    g.length_penalty = 1.0;
    if (!files.decoder_yml.empty()) {
        const Options dec{parse_yaml(read_regular_file(files.decoder_yml, kMaxYamlBytes), files.decoder_yml), files.decoder_yml};
        if (dec.has("beam-size")) g.num_beams = dec.size("beam-size", 1024);
        const double normalize = dec.get<double>("normalize", 0.0);
        if (!(normalize >= 0 && normalize <= 10)) throw Error(files.decoder_yml + ": normalize must be in [0, 10]");
        g.length_penalty = normalize;
    }
    g.max_length = 512;
    g.bad_words_ids = {{c.pad_id}};
    g.forced_eos_token_id = c.eos_id;

    StagedDir out(out_dir, replace);
    out.fill([&](const std::string& staging) {
        save_model(staging, model, dtype);
        write_file_atomic(staging + "/vocab.json", vocab_json(src, c.pad_id).dump() + "\n");
        if (!c.share_embeddings) write_file_atomic(staging + "/target_vocab.json", vocab_json(tgt, c.pad_id).dump() + "\n");
        install_spm(staging, files.source_spm, files.target_spm);
        save_generation_config(staging, g, c);
    });
    out.commit();
}

namespace {

// What keeps a model from being a Marian one; "" when it is one.
std::string not_marian(const ModelDir& md, const TokenizerFiles& files) {
    const ModelConfig& c = md.model.config;
    if (files.vocab.empty()) return "it has no vocab.json (tfm's own models number SentencePiece's pieces, pad first; Marian's have no pad)";
    if (c.positions != PositionKind::SinusoidalHalves) return "its positions are not sinusoids in halves";
    if (c.norm != NormPlacement::Post) return "it is pre-norm";
    if (c.activation != Activation::Swish && c.activation != Activation::Relu) return "its activation is neither swish nor relu";
    if (!c.scale_embedding) return "its embeddings are not scaled by sqrt(d_model)";
    if (c.encoder_heads != c.decoder_heads) return "its encoder and decoder have different numbers of heads";
    if (c.source_vocab() != c.target_vocab()) return "its two vocabularies differ in size";
    const auto last = std::int64_t(c.target_vocab()) - 1;
    if (c.pad_id != last || c.decoder_start_id != last) return "pad and decoder start are not both the last id";
    if (c.eos_id == c.pad_id) return "eos is pad";
    const std::size_t d = c.d_model, pad = std::size_t(c.pad_id);
    for (const auto* table : {&md.model.shared, &md.model.source_embedding()})
        for (std::size_t j = 0; j < d; ++j)
            if ((*table)(pad, j) != 0.0f) return "the pad row of its embeddings is not zero (Marian starts from a zero vector)";
    return "";
}

std::string options_yaml(const ModelConfig& c) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "type" << YAML::Value << "transformer";
    e << YAML::Key << "dim-emb" << YAML::Value << c.d_model;
    e << YAML::Key << "dim-vocabs" << YAML::Value << YAML::Flow << YAML::BeginSeq << c.source_vocab() - 1
      << c.target_vocab() - 1 << YAML::EndSeq;
    e << YAML::Key << "enc-depth" << YAML::Value << c.encoder_layers;
    e << YAML::Key << "dec-depth" << YAML::Value << c.decoder_layers;
    e << YAML::Key << "transformer-heads" << YAML::Value << c.encoder_heads;
    e << YAML::Key << "transformer-dim-ffn" << YAML::Value << c.encoder_ffn;
    e << YAML::Key << "transformer-decoder-dim-ffn" << YAML::Value << c.decoder_ffn;
    e << YAML::Key << "transformer-ffn-depth" << YAML::Value << 2;
    e << YAML::Key << "transformer-ffn-activation" << YAML::Value << activation_name(c.activation);
    e << YAML::Key << "transformer-preprocess" << YAML::Value << YAML::DoubleQuoted << "";
    e << YAML::Key << "transformer-postprocess" << YAML::Value << "dan";
    e << YAML::Key << "transformer-postprocess-emb" << YAML::Value << "d";
    e << YAML::Key << "transformer-decoder-autoreg" << YAML::Value << "self-attention";
    e << YAML::Key << "transformer-train-position-embeddings" << YAML::Value << false;
    e << YAML::Key << "tied-embeddings-all" << YAML::Value << (c.share_embeddings && c.tie_word_embeddings);
    e << YAML::Key << "tied-embeddings-src" << YAML::Value << c.share_embeddings;
    e << YAML::Key << "tied-embeddings" << YAML::Value << c.tie_word_embeddings;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

std::string vocab_yaml(const std::string& path, std::int64_t pad) {
    const Json j = read_json_file(path, kMaxYamlBytes);
    std::vector<std::pair<std::int64_t, std::string>> by_id;
    for (auto& [piece, id] : j.items())
        if (id.is_number_integer() && id.get<std::int64_t>() != pad) by_id.push_back({id.get<std::int64_t>(), piece});
    std::sort(by_id.begin(), by_id.end());
    YAML::Emitter e;
    e << YAML::BeginMap;
    for (const auto& [id, piece] : by_id) e << YAML::Key << YAML::DoubleQuoted << piece << YAML::Value << id;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

}  // namespace

void export_marian(const std::string& model_dir, const std::string& out_dir, bool replace) {
    const ModelDir md = load_model_dir(model_dir);
    const ModelConfig& c = md.model.config;
    const TokenizerFiles files = tokenizer_files(model_dir);
    const std::string why = not_marian(md, files);
    if (!why.empty()) throw Error(model_dir + ": Marian cannot run this model: " + why);
    std::map<std::string, std::pair<const float*, Shape>> tensors;
    visit_tensors(md.model, [&](const std::string& name, const float* data, const Shape& shape) {
        tensors[name] = {data, shape};
    });
    std::vector<NpzArray> arrays;
    for (const Link& l : links(c)) {
        const auto& [data, shape] = tensors.at(l.hf);
        arrays.push_back({l.marian, "F32", marian_shape(l), to_marian(l, data)});
    }
    const std::string options = options_yaml(c) + std::string(1, '\0');
    arrays.push_back({kConfigArray, "I8", {options.size()}, options});

    const bool separate = !files.target_vocab.empty();
    const std::string src_vocab = separate ? "source.vocab.yml" : "vocab.yml", tgt_vocab = separate ? "target.vocab.yml" : "vocab.yml";
    YAML::Emitter dec;
    dec << YAML::BeginMap;
    dec << YAML::Key << "models" << YAML::Value << YAML::BeginSeq << "model.npz" << YAML::EndSeq;
    dec << YAML::Key << "vocabs" << YAML::Value << YAML::BeginSeq << src_vocab << tgt_vocab << YAML::EndSeq;
    dec << YAML::Key << "beam-size" << YAML::Value << md.generation.num_beams.value_or(4);
    char normalize[32];
    std::snprintf(normalize, sizeof normalize, "%g", md.generation.length_penalty.value_or(1.0));
    dec << YAML::Key << "normalize" << YAML::Value << normalize;
    dec << YAML::Key << "word-penalty" << YAML::Value << 0;
    dec << YAML::Key << "mini-batch" << YAML::Value << 16;
    dec << YAML::Key << "maxi-batch" << YAML::Value << 100;
    dec << YAML::Key << "maxi-batch-sort" << YAML::Value << "src";
    dec << YAML::Key << "relative-paths" << YAML::Value << true;
    dec << YAML::EndMap;

    StagedDir out(out_dir, replace);
    out.fill([&](const std::string& dir) {
        save_npz(dir + "/model.npz", arrays);
        write_file_atomic(dir + "/" + src_vocab, vocab_yaml(files.vocab, c.pad_id));
        if (separate) write_file_atomic(dir + "/" + tgt_vocab, vocab_yaml(files.target_vocab, c.pad_id));
        write_file_atomic(dir + "/decoder.yml", std::string(dec.c_str()) + "\n");
        install_spm(dir, files.source, files.target);
    });
    out.commit();
}

}  // namespace tfm
