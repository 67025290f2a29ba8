#include "tfm/sublayer.hpp"

namespace tfm {

void residual_sublayer(Mat x, const LayerNorm& ln, NormPlacement norm, SublayerBuffers& buf,
                       const std::function<void(Mat out, ConstMat in)>& f) {
    const std::size_t n = x.rows, d = x.cols;
    buf.out.resize(n * d);
    Mat out = mat(buf.out.data(), n, d);
    ConstMat in = x;
    if (norm == NormPlacement::Pre) {
        buf.in.resize(n * d);
        Mat normed = mat(buf.in.data(), n, d);
        layernorm_forward(normed, x, ln);
        in = normed;
    }
    f(out, in);
    for (std::size_t i = 0; i < n; ++i) {
        float* xr = x.data + i * x.ld;
        const float* o = out.data + i * d;
        for (std::size_t j = 0; j < d; ++j) xr[j] += o[j];
    }
    if (norm == NormPlacement::Post) layernorm_forward(x, x, ln);
}

}  // namespace tfm
