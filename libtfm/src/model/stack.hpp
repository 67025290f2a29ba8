// Pieces the encoder and decoder stacks share around their layers (model tier, internal to
// encoder.cpp and decoder.cpp): the embedding's dropout, the next dropout mask, the final
// LayerNorm of pre-norm models, each keeping what training's backward pass needs.
#pragma once

#include <vector>

#include "tfm/nn/dropout.hpp"
#include "tfm/nn/layernorm.hpp"
#include "tfm/nn/multihead.hpp"

namespace tfm::stack {

// The next mask of the pass; inactive without a stream (inference).
inline DropoutMask next_mask(DropoutStream* dropout) { return dropout ? dropout->next() : DropoutMask{}; }
// The next mask on attention probabilities, kept in *keep (training) when given.
inline void next_attention_mask(DropoutStream* dropout, MultiHeadSaved* keep) {
    const DropoutMask m = dropout ? dropout->next_attention() : DropoutMask{};
    if (keep) keep->dropout = m;
}
// The next mask on the feed-forward's hidden layer.
inline DropoutMask next_activation_mask(DropoutStream* dropout) {
    return dropout ? dropout->next_activation() : DropoutMask{};
}

// Dropout on the embedded rows x [N,D]: the mask is drawn (and kept in *kept) whenever a
// stream is given.
void embedding_dropout(std::vector<float>& x, std::size_t n, std::size_t d, DropoutMask* kept, DropoutStream* dropout);

// x [N,D] = LN(x); with kept, the input's buffer is handed there (not copied).
void final_norm(std::vector<float>& x, std::size_t n, const LayerNorm& ln, std::vector<float>* kept);

}  // namespace tfm::stack
