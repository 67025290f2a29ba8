#include "tfm/base/random.hpp"

#include <cmath>

namespace tfm {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
    for (auto& s : s_) s = splitmix64(seed);
}

void xavier_uniform(float* w, std::size_t fan_out, std::size_t fan_in, Rng& rng) {
    float a = std::sqrt(6.0f / float(fan_in + fan_out));
    for (std::size_t i = 0; i < fan_out * fan_in; ++i) w[i] = rng.uniform(-a, a);
}

}  // namespace tfm
