// What a training forward keeps of a whole stack (encoder or decoder) for its backward pass:
// each layer's trace, the embedding's dropout mask and the final LayerNorm's input.
#pragma once

#include <vector>

#include "tfm/nn/dropout.hpp"

namespace tfm {

template <class LayerTrace>
struct StackTrace {
    std::vector<LayerTrace> layers;
    DropoutMask embedding;
    std::vector<float> final_in;  // the final LayerNorm's input (pre-norm models)
};

}  // namespace tfm
