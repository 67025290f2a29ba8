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

}  // namespace tfm::stack
