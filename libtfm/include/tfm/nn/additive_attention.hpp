// Additive (Bahdanau) attention, the alternative the paper compares against:
//   score(q, k) = w · tanh(W_q q + W_k k)
// per head on the head's K-dimensional slices, with one set of parameters shared by all heads.
#pragma once

#include <cstdint>

#include <xtensor/xtensor.hpp>

#include "tfm/nn/attention.hpp"
#include "tfm/base/random.hpp"

namespace tfm {

struct AdditiveParams {
    xt::xtensor<float, 2> wq;  // [A,K]
    xt::xtensor<float, 2> wk;  // [A,K]
    xt::xtensor<float, 1> w;   // [A]
};

AdditiveParams random_additive(std::size_t k, std::size_t a, Rng& rng);

// Each item: q [Tq,D], k [Tk,D], v [Tk,Dv] -> out [Tq,Dv]; weights [H,Tq,Tk] or nullptr.
void additive_attention(const std::vector<AttentionItem>& items, std::size_t heads, bool causal,
                        const AdditiveParams& p);

}  // namespace tfm
