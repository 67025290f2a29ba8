// The residual connection around every sublayer, with the LayerNorm after it (post-norm, the
// paper: x = LN(x + f(x))) or before it (pre-norm: x = x + f(LN(x))).
#pragma once

#include <functional>
#include <vector>

#include "tfm/config.hpp"
#include "tfm/layernorm.hpp"

namespace tfm {

struct SublayerBuffers {
    std::vector<float> in, out;  // [N,D] each
};

// f computes out [N,D] from in [N,D]; x [N,D] is updated in place.
void residual_sublayer(Mat x, const LayerNorm& ln, NormPlacement norm, SublayerBuffers& buf,
                       const std::function<void(Mat out, ConstMat in)>& f);

}  // namespace tfm
