#include "tfm/eval/numpy_random.hpp"

#include <array>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {

// numpy's SeedSequence (bit_generator.pyx): a 4-word pool mixed from the seed's 32-bit words.
constexpr std::uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr std::uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
constexpr int kXShift = 16;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
    value ^= hash_const;
    hash_const *= kMultA;
    value *= hash_const;
    value ^= value >> kXShift;
    return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
    std::uint32_t result = kMixMultL * x - kMixMultR * y;
    result ^= result >> kXShift;
    return result;
}

std::array<std::uint64_t, 4> seed_state(std::uint64_t seed) {
    std::uint32_t entropy[2] = {std::uint32_t(seed), std::uint32_t(seed >> 32)};
    const std::size_t n_entropy = (seed >> 32) ? 2 : 1;
    std::array<std::uint32_t, 4> pool{};
    std::uint32_t hash_const = kInitA;
    for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = hashmix(i < n_entropy ? entropy[i] : 0, hash_const);
    for (std::size_t src = 0; src < pool.size(); ++src)
        for (std::size_t dst = 0; dst < pool.size(); ++dst)
            if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
    // generate_state(4, uint64): 8 words from the pool in turn, paired little-endian.
    std::uint32_t words[8];
    std::uint32_t hc = kInitB;
    for (std::size_t i = 0; i < 8; ++i) {
        std::uint32_t v = pool[i % 4];
        v ^= hc;
        hc *= kMultB;
        v *= hc;
        v ^= v >> kXShift;
        words[i] = v;
    }
    std::array<std::uint64_t, 4> out{};
    for (std::size_t i = 0; i < 4; ++i) out[i] = std::uint64_t(words[2 * i]) | (std::uint64_t(words[2 * i + 1]) << 32);
    return out;
}

const uint128_t kMultiplier = (uint128_t)(0x2360ED051FC65DA4ULL) << 64 | 0x4385DF649FCCF645ULL;

}  // namespace

NumpyRandom::NumpyRandom(std::uint64_t seed) {
    const auto s = seed_state(seed);
    const uint128_t initstate = (uint128_t)(s[0]) << 64 | s[1];
    const uint128_t initseq = (uint128_t)(s[2]) << 64 | s[3];
    state_ = 0;
    inc_ = (initseq << 1) | 1;
    state_ = state_ * kMultiplier + inc_;
    state_ += initstate;
    state_ = state_ * kMultiplier + inc_;
}

std::uint64_t NumpyRandom::next64() {
    state_ = state_ * kMultiplier + inc_;
    const std::uint64_t hi = std::uint64_t(state_ >> 64), lo = std::uint64_t(state_);
    const unsigned rot = unsigned(hi >> 58);
    const std::uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
}

std::uint32_t NumpyRandom::next32() {
    if (has32_) {
        has32_ = false;
        return buffered32_;
    }
    const std::uint64_t next = next64();
    has32_ = true;
    buffered32_ = std::uint32_t(next >> 32);
    return std::uint32_t(next);
}

std::uint64_t NumpyRandom::below(std::uint64_t n) {
    if (n == 0 || n > (std::uint64_t(1) << 32)) throw Error("NumpyRandom::below: n must be 1..2^32");
    const std::uint64_t rng = n - 1;
    if (rng == 0) return 0;
    if (rng == 0xFFFFFFFFu) return next32();
    const std::uint32_t rng_excl = std::uint32_t(rng) + 1;
    std::uint64_t m = std::uint64_t(next32()) * rng_excl;
    std::uint32_t leftover = std::uint32_t(m);
    if (leftover < rng_excl) {
        const std::uint32_t threshold = (0xFFFFFFFFu - std::uint32_t(rng)) % rng_excl;
        while (leftover < threshold) {
            m = std::uint64_t(next32()) * rng_excl;
            leftover = std::uint32_t(m);
        }
    }
    return m >> 32;
}

bool NumpyRandom::coin() {
    if (bits_left_ == 0) {
        bits_ = next32();
        bits_left_ = 31;
    } else {
        bits_ >>= 1;
        --bits_left_;
    }
    return bits_ & 1u;
}

}  // namespace tfm
