// Greedy and beam search. They know only a step function: "the last token of every live
// hypothesis -> log-probabilities of the next", and a way to keep, reorder or duplicate
// hypotheses; nothing about layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfm/base/gemm.hpp"
#include "tfm/model/generation.hpp"

namespace tfm {

class StepFunction {
public:
    virtual ~StepFunction() = default;
    virtual std::size_t vocab() const = 0;
    // tokens [N], one per live row -> logprobs [N,V]
    virtual void step(const std::vector<std::int64_t>& tokens, Mat logprobs) = 0;
    // The new rows are the old rows rows[0], rows[1], ... (repeats allowed, others dropped).
    virtual void select(const std::vector<std::size_t>& rows) = 0;
    // After step(): row r's attention over its source's tokens (search with
    // SearchOptions::attention asks for it; a step function without one refuses).
    virtual void attention(std::size_t row, std::vector<float>& out) const;
};

enum class LengthPenalty { None, Gnmt, Power };
LengthPenalty parse_length_penalty(const std::string& name);  // none | gnmt | power

// GNMT: ((5 + len) / 6)^alpha; Power: len^alpha; None: 1.
double length_penalty(LengthPenalty kind, double alpha, std::size_t len);

// Sampling instead of search: each token drawn from the model's distribution, sharpened by the
// temperature and cut to the top_k most probable tokens and to the smallest set whose
// probability reaches top_p.
struct SamplingOptions {
    std::size_t top_k = 0;     // 0: no cut
    double top_p = 1.0;        // (0, 1]
    double temperature = 1.0;  // > 0
    std::uint64_t seed = 0;
};

struct SearchOptions {
    std::size_t beam = 4;                   // 1: greedy
    std::size_t n_best = 1;                 // hypotheses returned per sentence (<= beam)
    EarlyStopping early_stopping = EarlyStopping::True;  // when beam search ends a sentence
    LengthPenalty penalty = LengthPenalty::Gnmt;
    double alpha = 0.6;
    std::int64_t start_id = 0, eos_id = 0;
    std::vector<std::size_t> max_len;       // per sentence: most tokens generated (eos included)
    std::size_t min_len = 0;                // eos is not allowed before this many other tokens
    // Token sequences never generated (HF's bad_words_ids): the last token of each is banned
    // wherever the hypothesis ends with the ones before it ({pad} bans pad everywhere).
    std::vector<std::vector<std::int64_t>> bad_words;
    // HF's forced_eos_token_id: the token at this position (counted from 1) can only be eos,
    // so a hypothesis that long ends finished (0: never forced).
    std::size_t eos_forced_at = 0;
    // Per sentence (empty, or one per sentence): tokens every hypothesis starts with, forced
    // whatever their probability (a prefix ending with eos ends the hypothesis there).
    std::vector<std::vector<std::int64_t>> prefixes;
    // Per sentence (empty, or one per sentence; negative: none): the first token of every
    // hypothesis, as HF's forced_bos_token_id forces it: every other token ruled out and its
    // log-probability taken as 0 (so it adds nothing to the score, and counts as a token for
    // the length penalty). A prefix then follows it.
    std::vector<std::int64_t> forced_first;
    // When set: n_best samples per sentence instead of search (beam is not used). Sample k of
    // sentence b draws from its own generator, seeded by (seed, sample_ids[b], k): the same
    // for a sentence whatever else is in its batch and however many threads run.
    std::optional<SamplingOptions> sampling;
    std::vector<std::uint64_t> sample_ids;  // per sentence (empty: 0, 1, 2, ...)
    bool attention = false;                 // keep each token's attention (Hypothesis::attention)
};

struct Hypothesis {
    std::vector<std::int64_t> ids;  // generated tokens, without the start and without eos
    std::vector<float> token_logprobs;  // one per generated token, eos's last when finished
    double logprob = 0;             // sum of token log-probabilities (eos included when reached)
    double score = 0;               // logprob / length_penalty(tokens generated)
    bool finished = false;          // ended with eos (false: stopped at the length limit)
    // With SearchOptions::attention: per entry of token_logprobs, the step's attention over the
    // source's tokens [S].
    std::vector<std::vector<float>> attention;
};

// For each of the batch's sentences (rows 0..B-1 of step at entry): its n-best list, best
// first.
std::vector<std::vector<Hypothesis>> greedy_search(StepFunction& f, std::size_t batch, const SearchOptions& opt);
std::vector<std::vector<Hypothesis>> beam_search(StepFunction& f, std::size_t batch, const SearchOptions& opt);
// n_best samples per sentence, best score first.
std::vector<std::vector<Hypothesis>> sample_search(StepFunction& f, std::size_t batch, const SearchOptions& opt);
// sampling ? sample_search : beam == 1 ? greedy : beam
std::vector<std::vector<Hypothesis>> search(StepFunction& f, std::size_t batch, const SearchOptions& opt);

}  // namespace tfm
