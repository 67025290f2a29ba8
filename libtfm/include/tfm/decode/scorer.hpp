// Scoring given translations: the log-probability the model gives each target (its tokens,
// then eos) after its source, teacher-forced in one pass over the whole target, with the
// distribution search uses (pad excluded, see log_softmax_rows). What marian-scorer,
// CTranslate2's score_batch and fairseq's --score-reference compute: to filter noisy corpora
// and to rerank.
#pragma once

#include <cstdint>
#include <vector>

#include "tfm/model/model.hpp"

namespace tfm {

struct TargetScore {
    std::vector<float> token_logprobs;  // [T]: one per target token, eos last
    double logprob = 0;                 // their sum
};

// sources[i] (ids then eos, not empty) and targets[i] (ids then eos, not empty) -> the score of
// target i; batches of batch_size pairs of similar length, results in the caller's order.
std::vector<TargetScore> score_targets(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                                       const std::vector<std::vector<std::int64_t>>& targets, std::size_t batch_size);

}  // namespace tfm
