// A small, fast, seedable random generator (xoshiro256**, seeded by splitmix64) whose
// sequence is the same on every platform, and the initialisations built on it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

class Rng {
public:
    explicit Rng(std::uint64_t seed);
    std::uint64_t next() {  // inline: initialisation draws one number per weight
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
    float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

// Glorot/Xavier uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
void xavier_uniform(float* w, std::size_t fan_out, std::size_t fan_in, Rng& rng);

}  // namespace tfm
