// The residual connection around every sublayer, with the LayerNorm after it (post-norm, the
// paper: x = LN(x + drop(f(x)))) or before it (pre-norm: x = x + drop(f(LN(x)))). One forward
// serves inference and training: given a trace it also keeps what the backward pass needs,
// handing buffers over instead of copying them.
#pragma once

#include <functional>
#include <vector>

#include "tfm/nn/dropout.hpp"
#include "tfm/nn/layernorm.hpp"

namespace tfm {

enum class NormPlacement { Post, Pre };

// Scratch of the forward and backward passes, reused from call to call.
struct SublayerBuffers {
    std::vector<float> in, out;  // [N,D] each
};

// What a training forward keeps of one sublayer: its input (pre-norm) or the inner function's
// input (post-norm: the sublayer's input too), the LayerNorm's input (post-norm) and the key
// of the dropout mask (the backward pass draws it again).
struct SublayerTrace {
    std::vector<float> x_in, inner_in, ln_in;
    DropoutMask mask;
};

// f computes out [N,D] from in [N,D]. x holds the running activations [N,D] (N*D values) and
// is updated. trace null (inference): in place, scratch from buf. trace set: x's buffer is
// handed to the trace and x gets the trace's old one for the output.
void residual_sublayer(std::vector<float>& x, std::size_t n, const LayerNorm& ln, NormPlacement norm,
                       const DropoutMask& mask, SublayerBuffers& buf, SublayerTrace* trace,
                       const std::function<void(Mat out, ConstMat in)>& f);

// Backward of residual_sublayer: dx holds d(sublayer output) and becomes d(sublayer input);
// grad_ln accumulates the LayerNorm's gradient. fb(din, dout, in) adds d(inner input) to din
// (zeroed first) from dout = d(inner output), given the inner function's input.
void residual_sublayer_backward(Mat dx, const LayerNorm& ln, LayerNorm& grad_ln, NormPlacement norm,
                                const SublayerTrace& trace, SublayerBuffers& buf,
                                const std::function<void(Mat din, ConstMat dout, ConstMat in)>& fb);

}  // namespace tfm
