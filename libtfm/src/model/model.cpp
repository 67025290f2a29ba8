#include "tfm/model/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "tfm/base/error.hpp"
#include "tfm/nn/posenc.hpp"

namespace tfm {

namespace {

struct NoLinearHook {
    template <class L>
    void operator()(L&) const {}
};

// Visits every named tensor of a model (the same walk loads and saves); after a linear
// layer's weight and bias, calls done_linear on the layer.
template <class M, class F, class G = NoLinearHook>
void walk(M& m, F&& visit, G&& done_linear = G{}) {
    const ModelConfig& c = m.config;
    const std::size_t d = c.d_model, vt = c.target_vocab();
    if (c.share_embeddings) {
        visit("model.shared.weight", m.shared, Shape{vt, d});
    } else {
        visit("model.encoder.embed_tokens.weight", m.source_embed, Shape{c.source_vocab(), d});
        visit("model.decoder.embed_tokens.weight", m.shared, Shape{vt, d});
    }
    if (!c.tie_word_embeddings) visit("lm_head.weight", m.lm_head, Shape{vt, d});
    if (c.positions == PositionKind::Learned) {
        visit("model.encoder.embed_positions.weight", m.encoder_positions, Shape{c.max_positions, d});
        visit("model.decoder.embed_positions.weight", m.decoder_positions, Shape{c.max_positions, d});
    }
    auto linear = [&](const std::string& name, auto& l, std::size_t out, std::size_t in) {
        visit(name + ".weight", l.weight, Shape{out, in});
        visit(name + ".bias", l.bias, Shape{out});
        done_linear(l);
    };
    // A model's attention has all four projections (the ones tfm-attend may leave out for its
    // ablations are no model's): a missing one is an error, never a null dereference.
    auto projection = [&](const std::string& name, auto& l) {
        if (!l) throw Error(name + ": the model's attention lacks this projection");
        linear(name, *l, d, d);
    };
    auto attention = [&](const std::string& name, auto& a) {
        projection(name + ".q_proj", a.q);
        projection(name + ".k_proj", a.k);
        projection(name + ".v_proj", a.v);
        projection(name + ".out_proj", a.out);
    };
    auto norm = [&](const std::string& name, auto& ln) {
        visit(name + ".weight", ln.gamma, Shape{d});
        visit(name + ".bias", ln.beta, Shape{d});
    };
    for (std::size_t l = 0; l < c.encoder_layers; ++l) {
        std::string p = "model.encoder.layers." + std::to_string(l);
        auto& e = m.encoder[l];
        attention(p + ".self_attn", e.self_attn);
        norm(p + ".self_attn_layer_norm", e.self_attn_ln);
        linear(p + ".fc1", e.ffn.fc1, c.encoder_ffn, d);
        linear(p + ".fc2", e.ffn.fc2, d, c.encoder_ffn);
        norm(p + ".final_layer_norm", e.final_ln);
    }
    for (std::size_t l = 0; l < c.decoder_layers; ++l) {
        std::string p = "model.decoder.layers." + std::to_string(l);
        auto& e = m.decoder[l];
        attention(p + ".self_attn", e.self_attn);
        norm(p + ".self_attn_layer_norm", e.self_attn_ln);
        attention(p + ".encoder_attn", e.cross_attn);
        norm(p + ".encoder_attn_layer_norm", e.cross_attn_ln);
        linear(p + ".fc1", e.ffn.fc1, c.decoder_ffn, d);
        linear(p + ".fc2", e.ffn.fc2, d, c.decoder_ffn);
        norm(p + ".final_layer_norm", e.final_ln);
    }
    if (c.norm == NormPlacement::Pre) {
        norm("model.encoder.layer_norm", *m.encoder_final_ln);
        norm("model.decoder.layer_norm", *m.decoder_final_ln);
    }
}

template <class T>
void allocate(T& t, const Shape& shape) {
    std::array<std::size_t, T::rank> sh{};
    std::copy(shape.begin(), shape.end(), sh.begin());
    t = T::from_shape(sh);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The structure a config implies, every tensor allocated (values unset; or left empty, for
// a loader that allocates each as it reads it), sinusoidal tables computed.
Model skeleton(const ModelConfig& c, bool allocate_tensors = true) {
    validate_config(c);
    Model m;
    m.config = c;
    m.encoder.resize(c.encoder_layers);
    m.decoder.resize(c.decoder_layers);
    auto with_projections = [](MultiHeadParams& a) { a.q = a.k = a.v = a.out = Linear{}; };
    for (auto& e : m.encoder) with_projections(e.self_attn);
    for (auto& e : m.decoder) {
        with_projections(e.self_attn);
        with_projections(e.cross_attn);
    }
    if (c.norm == NormPlacement::Pre) m.encoder_final_ln = m.decoder_final_ln = LayerNorm{};
    for (auto& e : m.encoder) e.self_attn_ln.eps = e.final_ln.eps = c.layer_norm_eps;
    for (auto& e : m.decoder) e.self_attn_ln.eps = e.cross_attn_ln.eps = e.final_ln.eps = c.layer_norm_eps;
    if (m.encoder_final_ln) m.encoder_final_ln->eps = m.decoder_final_ln->eps = c.layer_norm_eps;
    if (allocate_tensors) walk(m, [](const std::string&, auto& t, const Shape& shape) { allocate(t, shape); });
    m.final_logits_bias = xt::zeros<float>({c.target_vocab()});
    if (c.positions == PositionKind::SinusoidalFairseq) {
        // M2M100's positions: the n-th token that is not padding sits at pad_token_id + n (n from 1).
        m.encoder_positions = m.decoder_positions =
            fairseq_sinusoidal_table(c.max_positions, c.d_model, std::size_t(c.pad_id) + 1);
    } else if (c.positions != PositionKind::Learned) {
        PeOptions opt;
        opt.layout = c.positions == PositionKind::SinusoidalHalves ? PeLayout::Halves : PeLayout::Interleaved;
        m.encoder_positions = m.decoder_positions = sinusoidal_encoding(c.max_positions, c.d_model, opt);
    }
    return m;
}

}  // namespace

Model random_model(const ModelConfig& c, std::uint64_t seed) {
    Model m = skeleton(c);
    Rng rng(seed);
    const float embed_std = 1.0f / std::sqrt(float(c.d_model));
    walk(m, [&](const std::string& name, auto& t, const Shape& shape) {
        float* p = t.data();
        const std::size_t n = t.size();
        if (name == "model.shared.weight" || name == "lm_head.weight" || ends_with(name, "embed_tokens.weight") ||
            ends_with(name, "embed_positions.weight")) {
            const float sd = ends_with(name, "embed_positions.weight") ? 0.02f : embed_std;
            for (std::size_t i = 0; i < n; ++i) {  // Box-Muller normal
                float u1 = std::max(rng.uniform(), 1e-12f), u2 = rng.uniform();
                p[i] = sd * std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
            }
        } else if (ends_with(name, "layer_norm.weight")) {
            std::fill(p, p + n, 1.0f);
        } else if (ends_with(name, ".bias")) {
            std::fill(p, p + n, 0.0f);
        } else {  // a linear layer's weight [out,in]
            xavier_uniform(p, shape[0], shape[1], rng);
        }
    });
    for (std::size_t j = 0; j < c.d_model; ++j) {  // pad embeds to 0
        m.shared(std::size_t(c.pad_id), j) = 0.0f;
        m.source_embedding()(std::size_t(c.pad_id), j) = 0.0f;
    }
    return m;
}

namespace {

// Before anything is allocated: the tensors whose shapes carry each size of the config are
// in the file with those shapes, so that a config claiming a million layers or an absurd
// vocabulary fails here, naming the key and the tensor, instead of running out of memory.
void check_sizes_against(const ModelConfig& c, const TensorFile& file) {
    auto expect = [&](const std::string& name, const Shape& shape, const std::string& keys) {
        if (!file.contains(name))
            throw Error(file.path() + ": no tensor '" + name + "', which config.json's " + keys + " imply");
        if (file.shape(name) != shape)
            throw Error(file.path() + ": tensor '" + name + "' has shape " + shape_str(file.shape(name)) +
                        ", expected " + shape_str(shape) + " from config.json's " + keys);
    };
    const std::size_t d = c.d_model;
    const std::string sd = "d_model=" + std::to_string(d);
    if (c.share_embeddings)
        expect("model.shared.weight", {c.target_vocab(), d}, "vocab_size=" + std::to_string(c.vocab_size) + ", " + sd);
    else
        expect("model.encoder.embed_tokens.weight", {c.source_vocab(), d},
               "vocab_size=" + std::to_string(c.vocab_size) + ", " + sd);
    if (c.positions == PositionKind::Learned)
        expect("model.encoder.embed_positions.weight", {c.max_positions, d},
               "max_position_embeddings=" + std::to_string(c.max_positions) + ", " + sd);
    const std::string el = "model.encoder.layers." + std::to_string(c.encoder_layers - 1);
    const std::string dl = "model.decoder.layers." + std::to_string(c.decoder_layers - 1);
    expect(el + ".fc1.weight", {c.encoder_ffn, d},
           "encoder_layers=" + std::to_string(c.encoder_layers) + ", encoder_ffn_dim=" + std::to_string(c.encoder_ffn));
    expect(dl + ".fc1.weight", {c.decoder_ffn, d},
           "decoder_layers=" + std::to_string(c.decoder_layers) + ", decoder_ffn_dim=" + std::to_string(c.decoder_ffn));
}

}  // namespace

namespace {

// The HF name of the output projection's weight: lm_head, or the target embedding when tied.
std::string output_weight_name(const ModelConfig& c) {
    if (!c.tie_word_embeddings) return "lm_head.weight";
    return c.share_embeddings ? "model.shared.weight" : "model.decoder.embed_tokens.weight";
}

// The output projection packed, and its fp32 copy freed: lm_head, or when tied the target
// embedding table, whose rows are then read out of the packed copy (Model::target_embedding_rows).
void pack_output(Model& m, ComputeType t) {
    const auto& w = m.output_weight();
    m.output_packed = std::make_shared<const PackedMatrix>(mat(w.data(), w.shape(0), w.shape(1)), t);
    if (m.lm_head.size())
        m.lm_head = xt::xtensor<float, 2>();
    else
        m.shared = xt::xtensor<float, 2>();
}

}  // namespace

Model load_model_weights(const ModelConfig& c, const TensorFile& file, std::optional<ComputeType> pack) {
    validate_config(c);
    check_sizes_against(c, file);
    if (pack) require_compute_type(*pack);
    // With `pack`, the matrices the model packs (linear layers, the output projection) never
    // lie whole in fp32: from a file that reads rows (safetensors) each is packed straight
    // from it a block of rows at a time; from another, read whole and packed (its fp32 copy
    // freed) as soon as it is. Every other tensor is allocated as it is read, straight into place.
    Model m = skeleton(c, false);
    const std::string output = output_weight_name(c);
    const bool stream = pack && file.reads_rows();
    std::set<std::string> linear_weights;  // the names of the linear layers' weights
    {
        std::string last;
        walk(
            m, [&](const std::string& name, const auto&, const Shape& shape) { if (shape.size() == 2) last = name; },
            [&](const Linear&) { linear_weights.insert(last); });
    }
    auto named = [&](const std::string& name, const auto& f) {
        try {
            return f();
        } catch (const Error& e) {  // packing refuses what a compute type cannot hold (NaN or Inf in int8)
            const std::string what = e.what();
            if (what.rfind(file.path() + ": ", 0) == 0) throw;  // the file's own error names the tensor already
            throw Error(file.path() + ": tensor '" + name + "': " + what);
        }
    };
    std::string weight;                              // the last matrix read: a layer's weight
    std::shared_ptr<const PackedMatrix> streamed;  // the layer's weight, packed from the file
    walk(
        m,
        [&](const std::string& name, auto& t, const Shape& shape) {
            weight = shape.size() == 2 ? name : weight;
            if (stream && (name == output || linear_weights.count(name))) {
                file.expect_shape(name, shape);
                streamed = named(name, [&] {
                    return std::make_shared<const PackedMatrix>(
                        shape[0], shape[1], *pack,
                        [&](std::size_t row0, std::size_t rows, float* dst) { file.read_rows(name, row0, rows, dst); });
                });
                // The tensor stays empty; a tied table's rows are read out of the packed copy.
                if (name == output) m.output_packed = std::move(streamed);
                return;
            }
            allocate(t, shape);
            file.read(name, shape, t.data());
            if (pack && name == output) named(name, [&] { pack_output(m, *pack); });
        },
        [&](Linear& l) {
            if (streamed)
                l.packed = std::move(streamed);
            else if (pack)
                named(weight, [&] { pack_linear(l, *pack); });
        });
    if (file.contains("final_logits_bias")) {
        FloatArray b = file.get("final_logits_bias");
        if (b.size() != c.target_vocab())
            throw Error(file.path() + ": tensor 'final_logits_bias' has shape " + shape_of(b) + ", expected [1," +
                        std::to_string(c.target_vocab()) + "]");
        std::copy(b.data(), b.data() + b.size(), m.final_logits_bias.data());
    }
    return m;
}

void pack_for_inference(Model& m, ComputeType t) {
    if (m.packed()) throw Error("model: packed for inference twice");
    require_compute_type(t);
    walk(m, [](const std::string&, auto&, const Shape&) {}, [&](Linear& l) { pack_linear(l, t); });
    pack_output(m, t);
}

namespace {
// Bytes of a weight matrix as held: its packed form where there is one, else fp32.
template <class Packed, class Weight>
std::size_t held_bytes(const Packed& packed, const Weight& weight) {
    return packed ? packed->bytes() : weight.size() * sizeof(float);
}
std::size_t weight_bytes(const Linear& l) { return held_bytes(l.packed, l.weight); }
std::size_t weight_bytes(const std::optional<Linear>& l) { return l ? weight_bytes(*l) : 0; }
}  // namespace

std::size_t decoder_step_weight_bytes(const Model& m) {
    std::size_t bytes = held_bytes(m.output_packed, m.output_weight());
    for (const auto& layer : m.decoder) {
        const auto& s = layer.self_attn;
        bytes += weight_bytes(s.q) + weight_bytes(s.k) + weight_bytes(s.v) + weight_bytes(s.out);
        bytes += weight_bytes(layer.cross_attn.q) + weight_bytes(layer.cross_attn.out);
        bytes += weight_bytes(layer.ffn.fc1) + weight_bytes(layer.ffn.fc2);
    }
    return bytes;
}

void visit_parameters(Model& m, const std::function<void(const std::string& name, float* data, std::size_t n)>& f) {
    walk(m, [&](const std::string& name, auto& t, const Shape&) { f(name, t.data(), t.size()); });
    f("final_logits_bias", m.final_logits_bias.data(), m.final_logits_bias.size());
}

Model zeros_like(const Model& m) {
    Model z = skeleton(m.config);
    visit_parameters(z, [](const std::string&, float* p, std::size_t n) { std::fill(p, p + n, 0.0f); });
    return z;
}

void visit_tensors(const Model& m, const std::function<void(const std::string&, const float*, const Shape&)>& f) {
    if (m.packed()) throw Error("model: packed for inference, its fp32 weights are gone: it cannot be saved");
    walk(m, [&](const std::string& name, const auto& t, const Shape& shape) { f(name, t.data(), shape); });
    f("final_logits_bias", m.final_logits_bias.data(), {1, m.config.target_vocab()});
}

void save_model_weights(const std::string& path, const Model& m, const std::string& dtype) {
    std::vector<NamedTensor> tensors;
    visit_tensors(m, [&](const std::string& name, const float* data, const Shape& shape) {
        tensors.push_back({name, data, shape});
    });
    // In an I8 file, the matrices an int8 model quantises (linear layers and the output
    // projection) are int8 rows; embedding and position tables stay exact. Loaded with
    // --compute-type int8, the file then gives the very model an fp32 one gives.
    std::set<const float*> quantised = {m.output_weight().data()};
    walk(m, [](const std::string&, const auto&, const Shape&) {}, [&](const Linear& l) { quantised.insert(l.weight.data()); });
    for (NamedTensor& t : tensors) t.int8_rows = quantised.count(t.data) != 0;
    save_safetensors(path, tensors, {{"format", "pt"}}, dtype);
}

}  // namespace tfm
