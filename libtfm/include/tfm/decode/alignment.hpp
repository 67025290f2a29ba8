// Word alignments read from the attention search keeps (SearchOptions::attention): each
// target token is aligned to the source token it attends to most, as Marian's --alignment
// hard, CTranslate2's return_attention and fairseq's --print-alignment do.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/decode/search.hpp"

namespace tfm {

// For each generated token of h (eos not counted): the index of the source token it attends
// to most, the source's last token (its eos) left out unless it is the only one; ties go to
// the first. Empty when h kept no attention.
std::vector<std::size_t> attended_sources(const Hypothesis& h);
// The same from attention rows (one per target token, eos's last when there) for the first
// `tokens` of them.
std::vector<std::size_t> attended_sources(const std::vector<std::vector<float>>& rows, std::size_t tokens);

}  // namespace tfm
