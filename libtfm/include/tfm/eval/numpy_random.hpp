// numpy's default generator, bit for bit: np.random.default_rng(seed) is PCG64 (XSL-RR, 128-bit
// LCG) seeded through SeedSequence, and Generator.integers / Generator.choice draw bounded
// integers with Lemire's method on 32-bit halves. sacreBLEU's bootstrap resampling and
// approximate randomisation draw from it, so the same seed gives tfm the same resamples and
// the same confidence intervals and p-values.
#pragma once

#include <cstdint>

namespace tfm {

__extension__ typedef unsigned __int128 uint128_t;  // GCC and Clang on 64-bit targets

class NumpyRandom {
public:
    explicit NumpyRandom(std::uint64_t seed);
    std::uint64_t next64();  // PCG64.random_raw()
    std::uint32_t next32();  // the low half of a draw, then its high half
    // Generator.integers(0, n) for 1 <= n <= 2^32 (an int64 draw), and rng.choice(n).
    std::uint64_t below(std::uint64_t n);
    // Generator.integers(2, dtype=bool): one bit of a 32-bit draw at a time.
    bool coin();

private:
    uint128_t state_ = 0, inc_ = 0;
    bool has32_ = false;
    std::uint32_t buffered32_ = 0;
    int bits_left_ = 0;
    std::uint32_t bits_ = 0;
};

}  // namespace tfm
