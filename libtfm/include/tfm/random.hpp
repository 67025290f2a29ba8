// A small, fast, seedable random generator (xoshiro256**, seeded by splitmix64) whose
// sequence is the same on every platform, and the initialisations built on it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

class Rng {
public:
    explicit Rng(std::uint64_t seed);
    std::uint64_t next();
    float uniform();                  // [0, 1)
    float uniform(float lo, float hi);

private:
    std::uint64_t s_[4];
};

// Glorot/Xavier uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
void xavier_uniform(float* w, std::size_t fan_out, std::size_t fan_in, Rng& rng);

}  // namespace tfm
