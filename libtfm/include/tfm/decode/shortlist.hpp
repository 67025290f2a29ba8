// Vocabulary shortlists: the target tokens a batch of sources can plausibly produce, so that
// the output layer and the search look at those rows only (a 256k-entry vocabulary costs its
// whole [N,V] product and top-k a step otherwise). Three formats, as their tools write them:
//   Marian's lexical shortlist, text ("--shortlist lex.s2t FIRST BEST [THRESHOLD]"): lines
//     "target source probability" (words are the vocabulary's pieces; NULL lines skipped); per
//     source piece the BEST most probable targets above THRESHOLD, and target ids below FIRST
//     always;
//   Marian's binary shortlist (marian-conv): a 48-byte header (magic 0xF11A48D5013417F5,
//     checksum, first, best, offset count, list length), u64 offsets per source id, u32 target
//     ids; size, offsets, ids and the checksum checked before use;
//   CTranslate2's vocabulary map ("vmap"): lines "source n-gram<TAB>target tokens", pieces
//     separated by spaces; an empty n-gram lists tokens that are always candidates.
// A shortlist always adds eos, <unk>, the decoder start and what the caller forces (language
// tokens, prefixes).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tfm/model/config.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

class Shortlist {
public:
    // Marian's text format.
    static Shortlist marian_text(const std::string& path, const Tokenizer& tok, const ModelConfig& c, std::size_t first,
                                 std::size_t best, double threshold = 0);
    // Marian's binary format (its ids are the model's).
    static Shortlist marian_binary(const std::string& path, const ModelConfig& c);
    // CTranslate2's vocabulary map.
    static Shortlist vocabulary_map(const std::string& path, const Tokenizer& tok, const ModelConfig& c);
    // Only the target ids below n (Marian's FIRST with an empty table): what a shortlist of n
    // entries costs, for benchmarks.
    static Shortlist first(std::size_t n, const ModelConfig& c);
    // Marian's formats by content: binary when the file starts with the magic, else text.
    static Shortlist marian(const std::string& path, const Tokenizer& tok, const ModelConfig& c, std::size_t first,
                            std::size_t best, double threshold = 0);

    // The sorted, distinct target ids for a batch of sources (ids, eos last), with `extra`.
    std::vector<std::int64_t> targets(const std::vector<const std::vector<std::int64_t>*>& sources,
                                      const std::vector<std::int64_t>& extra) const;
    std::size_t entries() const;  // (source key, target) pairs held

private:
    std::size_t target_vocab_ = 0;
    std::vector<std::int64_t> always_;
    // Single source ids -> targets (offsets_ into targets_, one more than the source vocabulary).
    std::vector<std::uint64_t> offsets_;
    std::vector<std::uint32_t> targets_;
    // Longer n-grams (CTranslate2) -> targets.
    std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> ngrams_;
    std::size_t longest_ = 1;
};

// Marian's binary shortlist of a text one (its lines in `text`), as marian-conv writes it:
// the pruned lists of marian_text(first, best, threshold), the checksum computed.
std::string marian_binary_shortlist(std::string_view text, const Tokenizer& tok, const ModelConfig& c,
                                    std::size_t first, std::size_t best, double threshold = 0);

}  // namespace tfm

namespace tfm {

struct LexiconOptions {
    std::size_t iterations = 5;       // EM iterations of IBM model 1
    std::size_t best = 100;           // targets written per source piece (the most probable)
    double threshold = 1e-4;          // and only those more probable than this
    std::size_t max_lines = 2000000;  // sentence pairs read at most
    // Pairs with more pieces than this on a side are skipped: a pair costs its two lengths'
    // product a step, so one long line must not cost more than the corpus.
    std::size_t max_length = 200;
};

// A lexical table for Marian's text shortlist from a line-aligned parallel corpus (gzip
// accepted): IBM model 1's p(target piece | source piece) (with a NULL source word), by EM from
// uniform, over the pieces the model's tokenizer makes (pairs longer than max_length pieces
// on a side skipped, as corpus cleaning does; lines read up to 1 MB). Lines "target source probability",
// source pieces in id order, each one's targets most probable first.
std::string lexical_table(const std::string& source_path, const std::string& target_path, const Tokenizer& tok,
                          const LexiconOptions& opt);

}  // namespace tfm
