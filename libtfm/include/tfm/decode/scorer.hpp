// Scoring given translations: the log-probability the model gives each target (its tokens,
// then eos) after its source, teacher-forced in one pass over the whole target, with the
// distribution search uses (pad excluded, see log_softmax_rows). What marian-scorer,
// CTranslate2's score_batch and fairseq's --score-reference compute: to filter noisy corpora
// and to rerank.
#pragma once

#include <cstdint>
#include <vector>

#include "tfm/decode/translator.hpp"
#include "tfm/model/model.hpp"

namespace tfm {

struct TargetScore {
    std::vector<float> token_logprobs;  // [T]: one per target token, eos last
    double logprob = 0;                 // their sum
    // With an attention choice: per target token, its encoder-decoder attention over the
    // source's tokens [S] (what alignments are read from, as search keeps it).
    std::vector<std::vector<float>> attention;
};

// sources[i] (ids then eos, not empty) and targets[i] (ids then eos, not empty) -> the score of
// target i; batches of batch_size pairs of similar length, results in the caller's order.
// attention, when set, chooses the layer and heads whose attention each score keeps.
std::vector<TargetScore> score_targets(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                                       const std::vector<std::vector<std::int64_t>>& targets, std::size_t batch_size,
                                       const DecodeOptions::Attention* attention = nullptr);

}  // namespace tfm
