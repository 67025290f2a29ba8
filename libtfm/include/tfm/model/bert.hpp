// Encoder-only Transformers of the BERT family as HF publishes them (BertModel): token,
// learned position and segment (token type) embeddings summed, LayerNorm, then post-norm
// encoder layers with GELU - the encoder of model/encoder.hpp under BERT's names - and the
// optional pooler tanh(W h_[CLS] + b). A directory holds config.json (model_type "bert"),
// model.safetensors or pytorch_model.bin (names with or without "bert.", LayerNorm
// gamma/beta as old checkpoints have them), vocab.txt and optionally tokenizer_config.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model/encoder.hpp"
#include "tfm/model/model.hpp"
#include "tfm/model/wordpiece.hpp"

namespace tfm {

struct BertModel {
    // The encoder's sizes (d_model, encoder_layers, encoder_heads, encoder_ffn, vocab_size,
    // max_positions, activation, layer_norm_eps; post-norm, no decoder).
    ModelConfig config;
    std::size_t type_vocab_size = 2;
    xt::xtensor<float, 2> word, position, token_type;  // [V,D], [P,D], [T,D]
    LayerNorm embed_ln;
    std::vector<EncoderLayer> layers;
    std::optional<Linear> pooler;  // [D,D]
};

// True when dir/config.json says model_type "bert".
bool is_bert_dir(const std::string& dir);

// config.json of a BERT model: hidden_size, num_hidden_layers, num_attention_heads,
// intermediate_size, vocab_size, max_position_embeddings, type_vocab_size, hidden_act,
// layer_norm_eps, pad_token_id; errors name the file and the key.
BertModel bert_skeleton(const std::string& config_path);
// Every tensor from the weights file (the error names the first missing or misshapen one).
void load_bert_weights(BertModel& m, const TensorFile& file);

// One sequence of a batch: ids with [CLS]/[SEP] and their segment ids.
struct BertInput {
    std::vector<std::int64_t> ids, segments;
    std::size_t full_length = 0;  // tokens before any cut to the token limit
    std::size_t line_bytes = 0;   // the texts' bytes, when they were cut to text_budget() before tokenizing
    std::size_t cap = 0;          // the tokens it was held to
    bool truncated = false;       // cut, before tokenizing or after
};

// [CLS] a [SEP] (segment 0), and for a pair b [SEP] (segment 1) after it; longer than
// max_tokens (0: the model's positions): the longer side loses its last pieces first, as HF's
// longest_first truncation. An empty text (no pieces, no pair) gives an empty input.
BertInput bert_input(const WordPiece& tok, std::string_view a, const std::string_view* b, std::size_t max_positions,
                     std::size_t max_tokens = 0);

// x [B*S,D] (resized): the last layer's states of a padded batch (src's ids, segments [B*S]).
// With trace, every layer's intermediates are kept there (encoder_layers; no dropout).
void bert_forward(std::vector<float>& x, const BertModel& m, const TokenBatch& src, const std::vector<std::int64_t>& segments,
                  EncoderWorkspace& ws, AttentionCapture* capture = nullptr, EncoderTrace* trace = nullptr);

enum class BertPooling { Cls, Mean, Pooler };
BertPooling parse_pooling(const std::string& name);  // cls | mean | pooler
// One sentence vector [D] from a sequence's states h [S,D] (S > 0): h[0], the mean over its
// rows, or the pooler's tanh(W h[0] + b) (a usage error without one).
void pool(float* out, ConstMat h, BertPooling how, const Linear* pooler);

struct BertDir {
    std::string path, weights;
    BertModel model;
    WordPiece tokenizer;
};
BertDir load_bert_dir(const std::string& dir);

}  // namespace tfm
