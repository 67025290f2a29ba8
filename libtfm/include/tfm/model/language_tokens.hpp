// The language tokens of NLLB-200's and M2M100's tokenizers as transformers numbers them
// (docs/tools.md "NLLB-200 and M2M100"): NLLB's codes (eng_Latn) are added tokens whose ids
// tokenizer_config.json's added_tokens_decoder or tokenizer.json's added_tokens give, else
// follow the SentencePiece pieces in the order of additional_special_tokens; M2M100's
// (__en__) follow vocab.json's entries in fairseq's order of the tokenizer's language_codes
// ("m2m100": 100 languages, "wmt21": 8). Every file is read as hostile: sizes bounded, ids
// checked against the model's vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tfm {

enum class FairseqTokenizer { Nllb, M2m100 };

struct LanguageTokens {
    FairseqTokenizer kind = FairseqTokenizer::Nllb;
    std::vector<std::string> codes;  // as users name them (eng_Latn, en), sorted
    std::vector<std::int64_t> ids;   // codes[i]'s token id
    std::int64_t mask = -1;          // NLLB's <mask> (-1: none)
    std::string default_source;      // tokenizer_config.json's src_lang, else transformers' default
    bool legacy = false;             // NLLB's legacy_behaviour: a source is tokens </s> [lang]
    bool clean_up_spaces = true;     // clean_up_tokenization_spaces (transformers' default: true)

    // The id of a code ("eng_Latn"; M2M100: "en" or "__en__"), -1 when the model has none.
    std::int64_t id(const std::string& code) const;
    // The token text of codes[i] ("eng_Latn", "__en__").
    std::string token(std::size_t i) const;
};

// Which of the two tokenizers a model directory holds (tokenizer_config.json's tokenizer_class,
// else vocab.json beside sentencepiece.bpe.model for M2M100).
FairseqTokenizer fairseq_tokenizer_kind(const std::string& model_dir);

// Reads the language tokens of model_dir. first_free is the first id after the pieces (NLLB:
// the SentencePiece pieces + 1; M2M100: vocab.json's entries); every id must lie below vocab.
LanguageTokens read_language_tokens(const std::string& model_dir, FairseqTokenizer kind, std::int64_t first_free,
                                    std::size_t vocab);

// transformers' clean_up_tokenization: " ." -> ".", " ," -> "," (also ? ! ' n't 'm 's 've 're).
std::string clean_up_tokenization(std::string text);

}  // namespace tfm
