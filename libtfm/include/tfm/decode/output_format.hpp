// How the translating tools print results (docs/design.md §5), one function per layout so that
// tfm-translate, tfm-decode and tfm-score print the same bytes:
//  - text: an input's best translation; with scores "score<TAB>text"; with ids the token ids;
//  - Moses n-best: "index ||| text ||| F0= logprob WordPenalty= -tokens ||| score" per hypothesis;
//  - alignment after the text: " ||| 0-0 1-2 ..." (hard, Pharaoh pairs source-target) or each
//    target token's attention over the source (soft, comma-separated, rows space-separated);
//  - jsonl: one JSON object per input (translation, score, logprob, finished, ids, tokens,
//    token_logprobs, line, n_best, alignment), invalid UTF-8 replaced.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/decode/scorer.hpp"
#include "tfm/decode/search.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

struct OutputFormat {
    bool jsonl = false;       // --format jsonl
    std::size_t n_best = 1;   // > 1: Moses n-best lines (or the jsonl n_best list)
    bool scores = false;      // --scores
    bool ids = false;         // ids, not text (--output-ids)
    bool replace_unk = false; // <unk> written as the source token it attends to most
    std::string alignment;    // "" | "hard" | "soft"
};

// The output of one input (0-based index), ending in '\n'. source: how the input spells its
// tokens, for replace_unk (null: no source text, <unk> stays as the tokenizer writes it).
std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const OutputFormat& f, const std::vector<TokenSpelling>* source = nullptr);

// rows: per target token (eos's last when there) its attention over the source; tokens: the
// target tokens without eos. hard: "s-t" pairs; soft: each row's weights ("%.6g").
std::string alignment_text(const std::vector<std::vector<float>>& rows, std::size_t tokens, const std::string& mode);

// tfm-score's line for a pair: the log-probability ("%.6f"; with normalize per token, eos
// counted), with tokens a tab and each token's ("%.4f"), with an alignment mode " ||| " and the
// forced alignment of the target without eos.
std::string format_score(const TargetScore& s, bool normalize, bool tokens, const std::string& alignment);

}  // namespace tfm
