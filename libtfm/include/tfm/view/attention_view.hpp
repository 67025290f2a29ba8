// What an attention explorer page shows (tfm-view): the tokens, every layer's and head's
// attention weights of each attention block of a model (encoder self-attention, decoder
// masked self-attention, encoder-decoder attention), and for one layer the steps of the
// computation with the model's own numbers: the embeddings and positional encodings, the
// projections Q, K, V, the scores q.k, the scale, the mask, the softmax, the heads' weighted
// sums of values and the output projection. Everything is taken from the engine's own forward
// (the training forward's trace, or multihead_forward), never computed a second way, except
// the raw scores q.k, which the fused attention kernel does not keep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfm/decode/translator.hpp"
#include "tfm/model/bert.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/nn/multihead.hpp"

namespace tfm {

// A dense float array and its shape (row-major).
struct ViewArray {
    std::vector<std::size_t> shape;
    std::vector<float> values;
};

// One attention block at its step layer, every head: what the step view walks through.
struct AttentionSteps {
    std::size_t layer = 0;
    ViewArray q, k, v;     // [Tq,D], [Tk,D], [Tk,D]: after the projections (the inputs where there is none)
    ViewArray scores;      // [H,Tq,Tk] q_h . k_h before the scale (empty for additive attention)
    float scale = 1.0f;    // 1/sqrt(d_k), or 1 (unscaled)
    ViewArray weights;     // [H,Tq,Tk] the softmax, as the engine computed it
    ViewArray context;     // [Tq,D] the heads' weighted sums of values, concatenated
    ViewArray output;      // [Tq,D] after the output projection (the context where there is none)
    bool projected_in = true, projected_out = true;
};

struct AttentionBlock {
    std::string id;        // "encoder", "decoder", "cross", "attention"
    std::string name;      // "encoder self-attention", ...
    std::size_t queries = 0, keys = 0;  // which token lists (AttentionView::tokens)
    std::size_t heads = 0, key_len = 0;  // keys past key_len are padding
    bool causal = false;
    std::vector<ViewArray> layers;        // per layer: weights [H,Tq,Tk]
    std::optional<AttentionSteps> steps;  // at the step layer
};

// The input rows of a stack: token embeddings (scaled), positions and their sum as the first
// layer sees it.
struct StackInputs {
    std::size_t tokens = 0;  // which token list
    std::string token_label, position_label, sum_label;
    ViewArray token, position, sum;  // [T,D] each (token/position may be empty)
};

struct AttentionView {
    std::string title;
    std::vector<std::string> token_list_names;          // "source", "target", ...
    std::vector<std::vector<std::string>> tokens;       // per list
    std::vector<AttentionBlock> blocks;
    std::vector<StackInputs> embeddings;
    std::vector<std::string> notes;                     // cuts and limits (the page shows them; tools warn)
    std::vector<std::string> remarks;                   // how to read this model's page (the page only)
};

struct ViewOptions {
    std::size_t step_layer = 0;   // the layer whose steps are kept (0-based; checked against every stack)
    std::size_t max_tokens = 64;  // tokens per side; longer input is cut (a note says so)
    DecodeOptions decode;         // how the translation is searched
};

// One step's data from what a multi-head forward computed: q [Tq,D], k and v [Tk,D] (after
// projection), ctx [Tq,D], weights [H,Tq,Tk], and its output y [Tq,D] when the caller has it
// (else p.out applied to ctx, with linear_forward as the layer does, or ctx itself without one).
AttentionSteps attention_steps(std::size_t layer, ConstMat q, ConstMat k, ConstMat v, ConstMat ctx,
                               const float* weights, std::size_t key_len, const AttentionOptions& opt,
                               const MultiHeadParams& p, const float* y = nullptr);

// A translation model on one source line: the source cut to max_tokens, its translation
// searched with opt.decode (also cut to max_tokens), then the encoder and the decoder run
// over both with their traces. Tokens are the model's pieces; the target list starts with the
// decoder's start token (the decoder's inputs). A language the source needs is the
// tokenizer's (set_source_language); a forced target language is opt.decode's.
AttentionView view_translation(const ModelDir& md, std::string_view line, const ViewOptions& opt);

// A BERT-family encoder on one line (a pair: text TAB text).
AttentionView view_bert(const BertDir& bd, std::string_view line, const ViewOptions& opt);

// tfm-attend's computation on one sequence: queries x_q [Tq,D], keys x_k and values x_v [Tk,D].
// Additive when p.additive is set; self: one token list (x_q is also the keys' input).
AttentionView view_attention(ConstMat x_q, ConstMat x_k, ConstMat x_v, std::size_t key_len,
                             const AttentionOptions& opt, const MultiHeadParams& p, bool self);

// Attention weights the tools wrote (tfm-encode --attention-out, tfm-attend --weights-out):
// one [H,Tq,Tk] per layer (a [Tq,Tk] is one head), all of one shape; no step data. Labels
// name the queries and keys (empty: numbered; a list of the wrong length is an Error); equal
// lists over a square matrix make one token list (self-attention).
AttentionView view_weights(const std::vector<ViewArray>& layers, std::vector<std::string> query_labels,
                           std::vector<std::string> key_labels);

}  // namespace tfm
