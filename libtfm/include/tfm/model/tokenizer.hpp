// Text <-> model ids through SentencePiece (docs/design.md §4): source.spm and target.spm (or one
// shared *.spm); with vocab.json, pieces map through it (unknown piece -> <unk>), otherwise
// SentencePiece ids are the model ids. A source is its pieces' ids followed by eos.
// With vocab.json the model is an HF Marian one and MarianTokenizer's rules hold
// (docs/opus-mt.md): a line that starts with a language code ">>xx<<" keeps it as one token,
// other codes in the line are dropped; target_vocab.json, when present, maps the target side
// (separate vocabularies); decoding never prints eos, pad, <unk> or language codes.
// NLLB-200 and M2M100 directories (sentencepiece.bpe.model) follow NllbTokenizer's and
// M2M100Tokenizer's rules (docs/tools.md): NLLB's ids are SentencePiece's + 1 (<s> 0, <pad> 1,
// </s> 2, <unk> 3), M2M100's go through vocab.json; a source is [source language] pieces
// </s> (NLLB's legacy_behaviour: pieces </s> [language]); the target language is the first
// output token, which the caller forces (language_id); decoding drops every special token and
// cleans up spaces as transformers does (clean_up_tokenization_spaces).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tfm/model/config.hpp"

namespace tfm {

// How a line spells one of its tokens: the text (the whitespace before it left out) and
// whether a word starts there. Empty for eos and language codes.
struct TokenSpelling {
    std::string text;
    bool word_start = false;
};

class Tokenizer {
public:
    // From a model directory; checks the ids against the config.
    static Tokenizer load(const std::string& model_dir, const ModelConfig& config);
    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // ids of the source pieces, then eos. The line is sanitised first (utf8.hpp). spellings,
    // when set, receives how the line spells each of those tokens (eos's and a language
    // code's empty): what --replace-unk copies.
    std::vector<std::int64_t> encode(std::string_view line, std::vector<TokenSpelling>* spellings = nullptr) const;
    // The same through the target model (training labels; differs from encode() only when the
    // model has separate vocabularies or language tokens: then target_language, when not
    // negative, goes first, as transformers' text_target puts it).
    std::vector<std::int64_t> encode_target(std::string_view line, std::int64_t target_language = -1) const;
    // Text of target ids (special ids dropped).
    std::string decode(const std::vector<std::int64_t>& ids) const;
    // The same with each <unk> of ids spelt as unk(i), i its index in ids (a space before it
    // when it starts a word and text precedes it).
    std::string decode(const std::vector<std::int64_t>& ids, const std::function<TokenSpelling(std::size_t)>& unk) const;
    std::int64_t unk_id() const;
    // The model's target-language codes, sorted (none: empty): the ">>xx<<" pieces of
    // vocab.json without the marks; NLLB's and M2M100's language codes (eng_Latn; en).
    std::vector<std::string> target_languages() const;
    // What --target-lang puts before a source line of a Marian model: ">>lang<< " ("" for an
    // empty lang, and for a model with language tokens); a UsageError naming the closest of
    // the model's codes when lang is not one of them.
    std::string target_lang_prefix(const std::string& lang) const;
    // True for NLLB-200 and M2M100: a language token goes before the source, and the target
    // language's token is the first output token.
    bool has_language_tokens() const;
    // The token id of a language (eng_Latn; M2M100: en or __en__). An unknown code is a
    // UsageError that starts with `what` and names the closest codes.
    std::int64_t language_id(const std::string& code, const std::string& what) const;
    // The language sources are in (has_language_tokens(); default: tokenizer_config.json's
    // src_lang, else transformers' default, eng_Latn or en). A UsageError for an unknown code or
    // a model without language tokens.
    void set_source_language(const std::string& code);
    std::string source_language() const;
    // A line's own target language on a model with language tokens: a leading ">>code<<" (and
    // the spaces after it) is cut from line and its id returned; -1 when the line has none or the
    // model has no language tokens (line unchanged). An unknown code is an Error naming the
    // closest.
    std::int64_t take_line_target(std::string_view& line) const;
    // The source piece of an id, as text ("▁Hund", "</s>"; "<id 123>" for an id without one).
    std::string source_piece(std::int64_t id) const;
    // The same for the target side.
    std::string target_piece(std::int64_t id) const;
    // The id of a piece as source_piece()/target_piece() spell it; -1 when the model has none.
    std::int64_t source_id(const std::string& piece) const;
    std::int64_t target_id(const std::string& piece) const;

    struct Impl;  // opaque

private:
    Tokenizer();
    std::unique_ptr<Impl> impl_;
};

// The tokenizer files of a model directory: source.spm and target.spm (or one spm.model for
// both, or NLLB's and M2M100's sentencepiece.bpe.model), and vocab.json / target_vocab.json
// when there are (empty otherwise); for sentencepiece.bpe.model also the tokenizer's JSON
// files that are there (`extra`: tokenizer_config.json, special_tokens_map.json,
// tokenizer.json, added_tokens.json). Missing SentencePiece models are errors.
struct TokenizerFiles {
    std::string source, target, vocab, target_vocab;
    bool fairseq = false;  // sentencepiece.bpe.model: NLLB or M2M100 (files keep their names)
    std::vector<std::string> extra;
};

// True for a Marian language code such as ">>por<<" (">>", then letters, digits or _-,
// then "<<").
bool is_language_code(std::string_view piece);
// The line with a target_lang_prefix() put before it, unless it starts with a code of its own.
std::string with_target_lang(const std::string& prefix, std::string_view line);
TokenizerFiles tokenizer_files(const std::string& model_dir);

// What a SentencePiece model file holds: piece count and special ids (-1: none).
struct SpmInfo {
    std::size_t pieces = 0;
    std::int64_t pad = -1, eos = -1, unk = -1, bos = -1;
};
SpmInfo spm_info(const std::string& path);
// Every piece of a SentencePiece model, by id.
std::vector<std::string> spm_pieces(const std::string& path);

struct SpmTrainOptions {
    std::size_t vocab_size = 8000;
    std::string model_type = "unigram";  // unigram | bpe
    double character_coverage = 1.0;
    std::size_t max_sentences = 2000000;
    std::uint64_t seed = 1;
};

// Trains a SentencePiece model on text files (one sentence per line, gzip accepted) with tfm's
// special ids: pad 0, eos 1, unk 2, no bos. Writes it atomically to `output`.
void train_sentencepiece(const std::vector<std::string>& inputs, const std::string& output, const SpmTrainOptions& opt);

}  // namespace tfm
