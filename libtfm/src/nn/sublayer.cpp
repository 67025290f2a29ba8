#include "tfm/nn/sublayer.hpp"

#include "tfm/base/parallel.hpp"

namespace tfm {

namespace {
// Rows [0, n) in blocks of a fixed size, in parallel: the blocks do not depend on the thread
// count, so neither do the results.
constexpr std::size_t kRowBlock = 32;
template <class F>
void for_row_blocks(std::size_t n, F&& fn) {
    parallel_blocks(n, kRowBlock, fn);
}
}  // namespace

void residual_sublayer(std::vector<float>& xv, std::size_t n, const LayerNorm& ln, NormPlacement norm,
                       const DropoutMask& mask, SublayerBuffers& buf, SublayerTrace* trace,
                       const std::function<void(Mat out, ConstMat in)>& f) {
    const std::size_t d = ln.gamma.size();
    const bool post = norm == NormPlacement::Post;
    // x: the sublayer's input; xv receives its output. At inference they are one buffer.
    std::vector<float>* x = &xv;
    if (trace) {
        x = post ? &trace->inner_in : &trace->x_in;
        x->swap(xv);
        xv.resize(n * d);
        trace->mask = mask;
    }
    ConstMat in = mat(x->data(), n, d);
    if (!post) {
        std::vector<float>& normed = trace ? trace->inner_in : buf.in;
        normed.resize(n * d);
        layernorm_forward(mat(normed.data(), n, d), in, ln);
        in = mat(normed.data(), n, d);
    }
    buf.out.resize(n * d);
    f(mat(buf.out.data(), n, d), in);
    // x + drop(out): into the LayerNorm's input (post-norm) or the output (pre-norm).
    float* sum = xv.data();
    if (post && trace) {
        trace->ln_in.resize(n * d);
        sum = trace->ln_in.data();
    }
    const float* residual = x->data();
    const float* out = buf.out.data();
    for_row_blocks(n, [&](std::size_t r0, std::size_t r1) {
        dropout_add(sum + r0 * d, residual + r0 * d, out + r0 * d, (r1 - r0) * d, r0 * d, mask);
    });
    if (post) layernorm_forward(mat(xv.data(), n, d), mat(sum, n, d), ln);
}

void residual_sublayer_backward(Mat dx, const LayerNorm& ln, LayerNorm& grad_ln, NormPlacement norm,
                                const SublayerTrace& t, SublayerBuffers& buf,
                                const std::function<void(Mat din, ConstMat dout, ConstMat in)>& fb) {
    const std::size_t n = dx.rows, d = dx.cols;
    if (norm == NormPlacement::Post) layernorm_backward(dx, grad_ln, dx, mat(t.ln_in.data(), n, d), ln);
    std::vector<float>& dout = buf.out;
    std::vector<float>& din = buf.in;
    dout.resize(n * d);
    din.resize(n * d);
    dropout_rows(dout.data(), dx.data, n, d, t.mask);
    parallel_fill(din.data(), n * d);
    fb(mat(din.data(), n, d), mat(dout.data(), n, d), mat(t.inner_in.data(), n, d));
    if (norm == NormPlacement::Pre)
        layernorm_backward(mat(din.data(), n, d), grad_ln, mat(din.data(), n, d), mat(t.x_in.data(), n, d), ln);
    for_row_blocks(n, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t i = r0 * d; i < r1 * d; ++i) dx.data[i] += din[i];
    });
}

}  // namespace tfm
