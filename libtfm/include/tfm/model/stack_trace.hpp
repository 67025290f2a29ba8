// What a training forward keeps of a whole stack (encoder or decoder) for its backward pass:
// each layer's trace, the positions of the batch's rows, the embedding's dropout mask and the
// final LayerNorm's input; and the buffers the backward passes reuse from batch to batch.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/nn/dropout.hpp"
#include "tfm/nn/sublayer.hpp"

namespace tfm {

template <class LayerTrace>
struct StackTrace {
    std::vector<LayerTrace> layers;
    std::vector<std::size_t> positions;  // [N] the position of every row, as the forward embedded it
    DropoutMask embedding;
    std::vector<float> final_in;  // the final LayerNorm's input (pre-norm models)
};

// Scratch of encoder_stack_backward and decoder_stack_backward.
struct StackBackwardBuffers {
    SublayerBuffers sub;
    std::vector<float> hidden;  // [N,F]
};

}  // namespace tfm
