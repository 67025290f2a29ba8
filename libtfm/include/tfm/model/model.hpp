// The parameters of the encoder-decoder Transformer, named as HF MarianMT names them in
// model.safetensors (docs/design.md §4), with random initialisation, loading and saving.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model/config.hpp"
#include "tfm/nn/embedding.hpp"
#include "tfm/nn/feedforward.hpp"
#include "tfm/nn/layernorm.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/io/safetensors.hpp"

namespace tfm {

struct EncoderLayer {
    MultiHeadParams self_attn;   // self_attn.{q,k,v,out}_proj
    LayerNorm self_attn_ln;      // self_attn_layer_norm
    FeedForward ffn;             // fc1 [F,D], fc2 [D,F]
    LayerNorm final_ln;          // final_layer_norm
};

struct DecoderLayer {
    MultiHeadParams self_attn;   // masked self-attention
    LayerNorm self_attn_ln;
    MultiHeadParams cross_attn;  // encoder_attn: queries from the decoder, keys/values from memory
    LayerNorm cross_attn_ln;     // encoder_attn_layer_norm
    FeedForward ffn;
    LayerNorm final_ln;
};

struct Model {
    ModelConfig config;
    // [Vt,D] embedding of the decoder and the (tied) output; of the encoder too when shared.
    // HF name model.shared.weight, or model.decoder.embed_tokens.weight when not shared.
    xt::xtensor<float, 2> shared;
    xt::xtensor<float, 2> source_embed;       // [V,D] the encoder's own table when not shared; else empty
    xt::xtensor<float, 2> lm_head;            // [Vt,D] when not tied; empty when tied
    xt::xtensor<float, 1> final_logits_bias;  // [Vt]
    xt::xtensor<float, 2> encoder_positions;  // [P,D] learned, or the sinusoidal table
    xt::xtensor<float, 2> decoder_positions;  // [P,D]
    std::vector<EncoderLayer> encoder;
    std::vector<DecoderLayer> decoder;
    std::optional<LayerNorm> encoder_final_ln;  // pre-norm only: model.encoder.layer_norm
    std::optional<LayerNorm> decoder_final_ln;  // pre-norm only: model.decoder.layer_norm
    // Set by pack_for_inference: the output projection [Vt,D] packed (lm_head then freed;
    // when tied, the shared table freed too: its rows are read out of the packed copy).
    std::shared_ptr<const PackedMatrix> output_packed;
    bool packed() const { return output_packed != nullptr; }

    // The output projection [Vt,D]: lm_head, or the target embedding when tied.
    const xt::xtensor<float, 2>& output_weight() const { return lm_head.size() ? lm_head : shared; }
    // The encoder's embedding [V,D]: its own table, or the shared one.
    const xt::xtensor<float, 2>& source_embedding() const { return source_embed.size() ? source_embed : shared; }
    xt::xtensor<float, 2>& source_embedding() { return source_embed.size() ? source_embed : shared; }
    // The rows the decoder and the encoder embed from (the packed output when tied and packed).
    EmbeddingRows target_embedding_rows() const {
        if (output_packed && shared.size() == 0) return EmbeddingRows(*output_packed);
        return EmbeddingRows(shared);
    }
    EmbeddingRows source_embedding_rows() const {
        return source_embed.size() ? EmbeddingRows(source_embed) : target_embedding_rows();
    }
};

// Xavier-uniform matrices, embeddings N(0, D^-1/2) with a zero pad row, zero biases,
// LayerNorm 1/0; deterministic for a seed.
Model random_model(const ModelConfig& config, std::uint64_t seed);

// Every tensor the config implies must be present with its shape; the error names the first
// missing or misshapen one. With `pack`, the model comes packed for inference in that compute
// type (pack_for_inference), each matrix packed as it is read.
Model load_model_weights(const ModelConfig& config, const TensorFile& file, std::optional<ComputeType> pack = {});

// Every parameter tensor with its HF name (tied weights once; the sinusoidal tables, which
// are not parameters, left out), in a fixed order.
void visit_parameters(Model& m, const std::function<void(const std::string& name, float* data, std::size_t n)>& f);

// Every parameter tensor with its HF name and shape, in the order save_model_weights writes
// them (final_logits_bias last, as [1,Vt]).
void visit_tensors(const Model& m, const std::function<void(const std::string& name, const float* data, const Shape& shape)>& f);

// Packs every weight matrix inference multiplies (attention projections, feed-forward, the
// output projection) once, in compute type t, and frees their fp32 copies; embedding tables
// stay fp32 for lookups. The model is then for inference only: training or saving it throws.
void pack_for_inference(Model& m, ComputeType t);

// Bytes of the weight matrices one decoding step multiplies, as they are held (packed, or
// fp32): every decoder layer's self-attention projections, its cross-attention's query and
// output projections (the memory's keys and values are projected once per batch), its
// feed-forward, and the output projection.
std::size_t decoder_step_weight_bytes(const Model& m);

// A model of zeros with m's structure: the gradient accumulator that mirrors Params.
Model zeros_like(const Model& m);

// All tensors under their HF names (tied weights once), written atomically as dtype F32, F16
// or BF16, or I8: weight matrices as int8 rows with a scale per row, the rest F32.
void save_model_weights(const std::string& path, const Model& model, const std::string& dtype = "F32");

}  // namespace tfm
