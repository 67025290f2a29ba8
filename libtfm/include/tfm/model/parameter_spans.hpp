// A model's parameters as plain spans, for code that treats them as numbers rather than
// layers: the optimizer, checkpoint averaging, gradient sums across batch parts and ranks.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "tfm/model/model.hpp"

namespace tfm {

// Every parameter tensor's data and element count, in visit_parameters order.
std::vector<std::pair<float*, std::size_t>> parameter_spans(Model& m);

// into += from, element by element (models of one structure), in parallel blocks.
void add_parameters(Model& into, Model& from);

}  // namespace tfm
