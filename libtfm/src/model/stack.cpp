#include "stack.hpp"

namespace tfm::stack {

void embedding_dropout(std::vector<float>& x, std::size_t n, std::size_t d, DropoutMask* kept, DropoutStream* dropout) {
    const DropoutMask mask = next_mask(dropout);
    if (kept) *kept = mask;
    if (mask.active()) dropout_rows(x.data(), x.data(), n, d, mask);
}

void final_norm(std::vector<float>& x, std::size_t n, const LayerNorm& ln, std::vector<float>* kept) {
    const std::size_t d = ln.gamma.size();
    if (!kept) {
        layernorm_forward(mat(x.data(), n, d), mat(x.data(), n, d), ln);
        return;
    }
    kept->swap(x);
    x.resize(n * d);
    layernorm_forward(mat(x.data(), n, d), mat(kept->data(), n, d), ln);
}

void embedding_backward(Mat dx, const TokenBatch& b, const std::vector<std::size_t>& positions, const DropoutMask& mask,
                        float scale, xt::xtensor<float, 2>& dtable, xt::xtensor<float, 2>* dpositions) {
    if (mask.active()) dropout_rows(dx.data, dx.data, dx.rows, dx.cols, mask);
    embed_backward(dx, b.ids.data(), positions.data(), scale, dtable, dpositions);
}

void final_norm_backward(Mat dx, const LayerNorm& ln, LayerNorm& grad, const std::vector<float>& in) {
    layernorm_backward(dx, grad, dx, mat(in.data(), dx.rows, dx.cols), ln);
}

}  // namespace tfm::stack
