// BERT's tokenizer (HF BertTokenizer: BasicTokenizer then WordpieceTokenizer) over a vocab.txt
// of one piece per line, the line number its id (a piece given twice takes its last line, as
// HF's load_vocab does). Special tokens written in the text stay whole. The rest is cleaned
// (every C* category dropped but tab, newline and return; whitespace, line and paragraph
// separators unified; invalid UTF-8 replaced first), NFC-normalised, CJK ideographs made words
// of their own, lower-cased as Python's str.lower() does (İ -> i + U+0307, final sigma) and
// stripped of accents when the model says so, split at whitespace and at every punctuation
// character; each word then becomes the longest vocab
// pieces from its start ("##" marking continuations), or [UNK] when it cannot, or when it is
// longer than 100 characters. Unicode properties come from utf8proc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfm {

struct WordPieceOptions {
    bool lower_case = true;      // do_lower_case
    int strip_accents = -1;      // strip_accents: -1 unset (follows lower_case), 0 no, 1 yes
    bool chinese_chars = true;   // tokenize_chinese_chars
    std::size_t max_word_chars = 100;
};

class WordPiece {
public:
    // vocab.txt's pieces; the special pieces must be in it.
    WordPiece(std::vector<std::string> pieces, const WordPieceOptions& opt, const std::string& origin = "vocab.txt");
    static WordPiece load(const std::string& vocab_path, const WordPieceOptions& opt);

    // The words of the basic tokenizer (cleaned, normalised, split), before WordPiece.
    std::vector<std::string> words(std::string_view text) const;
    // The ids of text's pieces (no [CLS]/[SEP] added); the special tokens written in the text
    // ([CLS], [SEP], [UNK], [PAD], [MASK], exactly so spelt) are one token each, as in HF.
    std::vector<std::int64_t> encode(std::string_view text) const;
    const std::string& piece(std::int64_t id) const;
    std::int64_t id(const std::string& piece) const;  // -1 when absent
    std::size_t size() const { return pieces_.size(); }
    std::int64_t cls_id() const { return cls_; }
    std::int64_t sep_id() const { return sep_; }
    std::int64_t unk_id() const { return unk_; }
    std::int64_t pad_id() const { return pad_; }

private:
    std::vector<std::int64_t> encode_words(std::string_view text) const;  // text without special tokens
    std::vector<std::string> pieces_;
    std::vector<std::pair<std::string, std::int64_t>> specials_;  // spelling, id
    std::unordered_map<std::string, std::int64_t> ids_;
    WordPieceOptions opt_;
    std::int64_t cls_ = -1, sep_ = -1, unk_ = -1, pad_ = -1;
};

}  // namespace tfm
