// The architecture of a model, as config.json of a model directory states it (docs/design.md §4):
// HF MarianConfig keys, plus tfm_* keys where the paper needs what Marian does not say.
// A config with "model_type": "marian" and no tfm_* keys means what it means to HF
// transformers: sinusoidal positions in the halves layout, post-norm, LayerNorm eps 1e-5.
#pragma once

#include <cstdint>
#include <string>

#include "tfm/nn/feedforward.hpp"
#include "tfm/nn/posenc.hpp"
#include "tfm/nn/sublayer.hpp"

namespace tfm {

// Bounds on a model's sizes, for config.json and for the flags that build one: far beyond any
// published model, small enough that products of them stay far from overflow.
constexpr std::size_t kMaxModelDim = std::size_t(1) << 16;  // d_model, heads
constexpr std::size_t kMaxLayers = 1024;
constexpr std::size_t kMaxFfn = std::size_t(1) << 20;
constexpr std::size_t kMaxVocab = std::size_t(1) << 24;
constexpr std::size_t kMaxPositions = std::size_t(1) << 20;

struct ModelConfig {
    std::size_t d_model = 0;                  // D
    std::size_t encoder_layers = 0, decoder_layers = 0;
    std::size_t encoder_heads = 0, decoder_heads = 0;
    std::size_t encoder_ffn = 0, decoder_ffn = 0;  // F
    std::size_t vocab_size = 0;               // V: the source vocabulary (and the target's when shared)
    std::size_t decoder_vocab_size = 0;       // Vt: the target vocabulary; 0 means vocab_size
    bool share_embeddings = true;             // one table for source, target (and tied output)
    std::size_t max_positions = 0;            // longest sequence the model takes
    Activation activation = Activation::Relu;
    bool scale_embedding = true;              // embeddings * sqrt(D)
    bool tie_word_embeddings = true;          // output projection = shared embedding
    std::int64_t pad_id = 0, eos_id = 0, decoder_start_id = 0;
    PositionKind positions = PositionKind::SinusoidalHalves;
    NormPlacement norm = NormPlacement::Post;
    float layer_norm_eps = 1e-5f;
    float dropout = 0.1f, attention_dropout = 0.0f, activation_dropout = 0.0f;  // training only

    float embed_scale() const;
    std::size_t source_vocab() const { return vocab_size; }
    std::size_t target_vocab() const { return decoder_vocab_size ? decoder_vocab_size : vocab_size; }
};

// Reads and checks config.json; every error names the file and the key.
ModelConfig load_config(const std::string& path);
// The JSON text of a config (HF keys and tfm_* keys).
std::string config_json(const ModelConfig& c);
// Whether two configs describe the same network: equal but for the training-only dropout
// rates (which a run may change when it resumes).
bool same_architecture(const ModelConfig& a, const ModelConfig& b);
// Sizes consistent (D % H, ids inside the vocabulary, ...); throws Error naming the keys.
void validate_config(const ModelConfig& c);

// The paper's models: "base" (N=6, D=512, H=8, F=2048), "big" (N=6, D=1024, H=16, F=4096),
// and "small" / "tiny" for tests and quick experiments. The paper's choices: interleaved
// sinusoids, post-norm, ReLU, tied embeddings scaled by sqrt(D).
ModelConfig preset_config(const std::string& name, std::size_t vocab_size);

}  // namespace tfm
