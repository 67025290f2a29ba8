// BERT's tokenizer (HF BertTokenizer: BasicTokenizer then WordpieceTokenizer) over a vocab.txt
// of one piece per line, the line number its id (a piece given twice takes its last line, as
// HF's load_vocab does). As HF's tokenize() does: with do_lower_case the text is lower-cased
// one character at a time (İ -> i + U+0307; a capital sigma is always σ) except the special
// tokens (and the normalized non-special added tokens) where they are written; then the added
// tokens (the five specials, additional_special_tokens, added_tokens.json, added_tokens_decoder)
// are split out, each one id. The rest is cleaned (every C* category dropped but tab, newline
// and return; whitespace, line and paragraph separators unified; invalid UTF-8 replaced first),
// NFC-normalised, CJK ideographs made words of their own, stripped of accents when the model
// says so, split at whitespace and (unless do_split_on_punc is false) at every punctuation
// character, never_split words kept whole and looked up as they are; each word then becomes
// the longest vocab
// pieces from its start ("##" marking continuations), or [UNK] when it cannot, or when it is
// longer than 100 characters. Unicode properties come from utf8proc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tfm {

// A token split out of the text before anything else, as HF's added tokens are.
struct AddedToken {
    std::string content;
    std::int64_t id = -1;    // -1: its id in vocab.txt
    bool special = false;    // special tokens are never lower-cased
    bool normalized = true;  // HF keeps a normalized non-special token out of lower-casing too
};

struct WordPieceOptions {
    bool lower_case = true;      // do_lower_case
    int strip_accents = -1;      // strip_accents: -1 unset (follows lower_case), 0 no, 1 yes
    bool chinese_chars = true;   // tokenize_chinese_chars
    bool split_on_punc = true;   // do_split_on_punc
    std::size_t max_word_chars = 100;
    // The special tokens' spellings (unk_token, ...); [MASK] may be absent from the vocab.
    std::string unk = "[UNK]", sep = "[SEP]", pad = "[PAD]", cls = "[CLS]", mask = "[MASK]";
    std::vector<AddedToken> added;         // beyond the five specials
    std::vector<std::string> never_split;  // words the basic tokenizer keeps whole
};

// The tokenizer settings of a Hugging Face model directory: tokenizer_config.json
// (do_lower_case, strip_accents, tokenize_chinese_chars, do_split_on_punc, never_split, the
// special tokens' spellings, additional_special_tokens, added_tokens_decoder),
// special_tokens_map.json and added_tokens.json, each optional. Ids must lie below vocab_size
// (the model's embedding rows); tokens are 1..4096 bytes of UTF-8, at most 2^20 of them.
WordPieceOptions read_wordpiece_options(const std::string& dir, std::size_t vocab_size);

class WordPiece {
public:
    // vocab.txt's pieces; the special pieces must be in it.
    WordPiece(std::vector<std::string> pieces, const WordPieceOptions& opt, const std::string& origin = "vocab.txt");
    static WordPiece load(const std::string& vocab_path, const WordPieceOptions& opt);

    // The words of the basic tokenizer (cleaned, normalised, split), before WordPiece.
    std::vector<std::string> words(std::string_view text) const;
    // The ids of text's pieces (no [CLS]/[SEP] added); the added tokens written in the text
    // (the specials, exactly so spelt) are one token each, as in HF.
    std::vector<std::int64_t> encode(std::string_view text) const;
    const std::string& piece(std::int64_t id) const;
    std::int64_t id(const std::string& piece) const;  // -1 when absent
    std::size_t size() const { return pieces_.size(); }
    std::int64_t cls_id() const { return cls_; }
    std::int64_t sep_id() const { return sep_; }
    std::int64_t unk_id() const { return unk_; }
    std::int64_t pad_id() const { return pad_; }
    // The largest id encode() can give (an added token's may lie past vocab.txt).
    std::int64_t max_id() const;

private:
    std::vector<std::int64_t> encode_words(std::string_view text) const;  // text without added tokens
    // do_lower_case's first pass: each character lower-cased, the protected tokens left as spelt.
    std::string lower_outside_protected(std::string_view text) const;
    std::vector<std::string> pieces_;
    std::vector<AddedToken> added_;       // the specials first; ids resolved
    std::vector<std::string> protected_;  // kept as spelt by the lower-casing pass, in HF's order
    std::unordered_map<std::string, std::int64_t> added_ids_;
    std::unordered_set<std::string> never_split_;
    std::unordered_map<std::string, std::int64_t> ids_;
    WordPieceOptions opt_;
    std::int64_t cls_ = -1, sep_ = -1, unk_ = -1, pad_ = -1;
};

}  // namespace tfm
