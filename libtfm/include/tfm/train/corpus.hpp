// Parallel text for training: two line-aligned files (gzip accepted) turned into id pairs,
// and batches built by token count from length buckets, shuffled by seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tfm/model/tokenizer.hpp"

namespace tfm {

struct SentencePair {
    std::vector<std::int64_t> src;  // pieces + eos
    std::vector<std::int64_t> tgt;  // pieces (eos is added as the last label)
    std::string reference;          // the target line as written (for BLEU)
};

struct Corpus {
    std::vector<SentencePair> pairs;
    std::size_t lines = 0;         // line pairs read
    std::size_t skipped_long = 0;  // pairs over the length limit, left out
    std::size_t skipped_empty = 0; // pairs with an empty side, left out
};

// Reads both files in step; different line counts, or no usable pair, are errors naming the
// files and counts. Pairs longer than max_len tokens on either side are skipped and counted.
// Sources go through the tokenizer's source model, targets through its target model.
Corpus load_parallel(const std::string& src_path, const std::string& tgt_path, const Tokenizer& tok,
                     std::size_t max_len);

// Batches of pair indices whose padded size, count x longest side, stays within max_tokens:
// pairs sorted by length into batches, then the batch order shuffled with the seed.
std::vector<std::vector<std::size_t>> token_batches(const std::vector<SentencePair>& pairs, std::size_t max_tokens,
                                                    std::uint64_t seed);

// Part `part` of `parts` of a batch: consecutive pairs of it, cut where the running token
// count (the longer side of each pair, as token_batches counts) crosses part / parts of the
// total. Parts may be empty when the batch holds fewer pairs than parts.
std::vector<std::size_t> batch_part(const std::vector<SentencePair>& pairs, const std::vector<std::size_t>& batch,
                                    std::size_t part, std::size_t parts);

}  // namespace tfm
