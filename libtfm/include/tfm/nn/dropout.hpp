// Dropout whose mask is a pure function of (key, element index): y[i] = x[i] * m[i] with
// m[i] = 0 with probability p and 1/(1-p) otherwise. The backward pass draws the same mask
// again from the same key instead of keeping it, rows may be split across threads in any way,
// and the same key gives the same mask on every machine and thread count.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

struct DropoutMask {
    std::uint64_t key = 0;  // which mask; derive one per use with dropout_key
    float p = 0.0f;         // probability of dropping; 0 = no dropout (m[i] = 1)
    bool active() const { return p > 0.0f; }
};

// A key for mask number `call` of the pass seeded by `seed` (a 64-bit mix of both).
std::uint64_t dropout_key(std::uint64_t seed, std::uint64_t call);

// y[i] = x[i] * m[first + i] for i < n (y may alias x).
void dropout_apply(float* y, const float* x, std::size_t n, std::size_t first, const DropoutMask& mask);

// sum[i] = residual[i] + x[i] * m[first + i] for i < n (sum may alias residual or x): the
// residual connection around a sublayer whose output x is dropped out.
void dropout_add(float* sum, const float* residual, const float* x, std::size_t n, std::size_t first,
                 const DropoutMask& mask);

// y [rows,D] = x * mask over contiguous rows, in parallel blocks of rows (y may be x): a
// copy when the mask is inactive.
void dropout_rows(float* y, const float* x, std::size_t rows, std::size_t d, const DropoutMask& mask);

// The masks of one pass, numbered in the order they are drawn. Three kinds, each its own
// sequence of keys: next() for embeddings and sublayer outputs (mask k has the key
// dropout_key(seed, k)), next_attention() for attention probabilities and next_activation()
// for the feed-forward's hidden layer (keys from seeds derived from `seed`). A stream of
// probability 0 (the default, inference) gives inactive masks and still counts them, so a
// pass draws the same keys whatever is switched off.
class DropoutStream {
public:
    DropoutStream() = default;
    DropoutStream(std::uint64_t seed, float p, float attention = 0.0f, float activation = 0.0f);
    DropoutMask next() { return draw(kinds_[0]); }
    DropoutMask next_attention() { return draw(kinds_[1]); }
    DropoutMask next_activation() { return draw(kinds_[2]); }

private:
    struct Kind {
        std::uint64_t seed = 0, calls = 0;
        float p = 0.0f;
    };
    static DropoutMask draw(Kind& k) {
        const std::uint64_t call = k.calls++;
        return k.p > 0.0f ? DropoutMask{dropout_key(k.seed, call), k.p} : DropoutMask{};
    }
    Kind kinds_[3];
};

// The mask values themselves, m[first + i] for i < n (0 or 1/(1-p)): for tests and tools.
void dropout_mask_values(float* m, std::size_t n, std::size_t first, const DropoutMask& mask);

}  // namespace tfm
