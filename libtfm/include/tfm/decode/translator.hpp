// Running the model over many sentences: batches of similar length (sorted within what the
// caller hands over), padding and masks, results back in the caller's order. The tools
// tfm-encode, tfm-decode and tfm-translate are thin loops over these functions, so the
// one-process translation gives exactly what encode | decode gives.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/model/encoder.hpp"
#include "tfm/decode/model_steps.hpp"
#include "tfm/decode/search.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

// A source line as model ids: its pieces then eos, or nothing for a line without pieces
// (empty or blank). Longer than max_tokens (0, or more than the model's positions: the
// model's positions): cut to fit (eos kept) and marked.
struct SourceIds {
    std::vector<std::int64_t> ids;
    std::vector<TokenSpelling> spellings;  // when asked: one per id (a cut source's eos has none)
    std::size_t full_length = 0;  // tokens before any cut to the token limit
    std::size_t line_bytes = 0;   // the line's bytes, when it was cut to text_budget() before tokenizing
    std::size_t cap = 0;          // the tokens it was held to
    bool truncated = false;       // cut, before tokenizing or after
};
SourceIds source_ids(const Tokenizer& tok, std::string_view line, const ModelConfig& c, std::size_t max_tokens = 0,
                     bool spell = false);
// A line of integer ids, each below vocab, with eos appended unless it ends with it (an empty
// line gives no ids). The parser of every --ids input.
std::vector<std::int64_t> ids_from_numbers(std::string_view line, std::size_t vocab, std::int64_t eos);
// The source of a line of integer ids (--input-ids), cut like source_ids().
SourceIds source_ids_from_numbers(std::string_view line, const ModelConfig& c, std::size_t max_tokens = 0);

struct DecodeOptions {
    SearchOptions search;         // beam, n_best, length penalty (ids and limits are filled in)
    double max_len_a = 1.0;       // output limit: a * source length + b (the paper: + 50) ...
    std::size_t max_len_b = 50;
    std::size_t max_len = 0;      // ... and at most this many tokens (0: no cap besides the model's)
    std::size_t batch_size = 32;  // sentences per batch
    // Per source of the call (empty: none): target ids every hypothesis starts with (no eos);
    // the output limit grows to hold the prefix and eos.
    std::vector<std::vector<std::int64_t>> prefixes;
    // The first token of every output (HF's forced_bos_token_id; SearchOptions::forced_first):
    // per source of the call where set (not negative), else forced_first_all (when set).
    std::vector<std::int64_t> forced_first;
    std::optional<std::int64_t> forced_first_all;
    std::size_t first_index = 0;  // the number of the call's first source in the input (sampling seeds)
    // When set, every hypothesis keeps each token's encoder-decoder attention (alignments):
    // that of this decoder layer (negative: counted from the last, -1 the last), averaged over
    // its first `heads` heads (0: all).
    struct Attention {
        long layer = -1;
        std::size_t heads = 0;
    };
    std::optional<Attention> attention;
    // A vocabulary shortlist (decode/shortlist.hpp): each batch's output layer and search see
    // only the targets its sources can produce (translate_sources only: it needs the sources).
    std::shared_ptr<const Shortlist> shortlist;
};

// The decoder layer an Attention choice names (negative: from the last), checked with its
// heads against the model (UsageErrors that give the model's layers and heads).
std::size_t attention_layer(const Model& m, const DecodeOptions::Attention& a);

// Most tokens generated (eos included) for a source of `source_len` tokens.
std::size_t output_limit(const ModelConfig& c, std::size_t source_len, const DecodeOptions& opt);

// Groups of indices, longest first, batch_size at most each; empty sequences are left out.
std::vector<std::vector<std::size_t>> length_batches(const std::vector<std::size_t>& lengths, std::size_t batch_size);

// One memory [S_i,D] per non-empty source; an empty source gives [0,D]. capture, when set,
// receives for each source and each capture layer the weights [H,S_i,S_i] ([H,0,0] for an
// empty source); its layers must be distinct and inside the encoder.
struct EncodedCapture {
    std::vector<std::size_t> layers;
    std::vector<std::vector<xt::xtensor<float, 3>>> weights;  // [source][layer entry]
};
std::vector<xt::xtensor<float, 2>> encode_sources(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                                                  std::size_t batch_size, EncodedCapture* capture = nullptr);

// The records of one encoded batch (encode_sources and BERT's encode_bert alike): out[idx[b]]
// is sequence b's rows [len_b,D] of x [B*S,D], and with capture its weights [H,len_b,len_b]
// per capture layer from cap's [B,H,S,S]; empty sources get [0,D] and [H,0,0] (prepare_records
// sets that up once).
void prepare_records(std::vector<xt::xtensor<float, 2>>& out, const std::vector<std::size_t>& lengths, std::size_t d,
                     std::size_t heads, EncodedCapture* capture);
void batch_records(std::vector<xt::xtensor<float, 2>>& out, const std::vector<float>& x, const TokenBatch& src,
                   const std::vector<std::size_t>& idx, std::size_t d, std::size_t heads, const AttentionCapture* cap,
                   EncodedCapture* capture);

// Search over memories [S_i,D]; an empty memory gives one empty hypothesis.
std::vector<std::vector<Hypothesis>> decode_memories(const Model& m, const std::vector<xt::xtensor<float, 2>>& memories,
                                                     const DecodeOptions& opt);

// Encoder and search in one go, batch by batch.
std::vector<std::vector<Hypothesis>> translate_sources(const Model& m,
                                                       const std::vector<std::vector<std::int64_t>>& sources,
                                                       const DecodeOptions& opt);

}  // namespace tfm
