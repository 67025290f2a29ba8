#include "tfm/base/fast_math.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

// No loop-carried dependence: lets GCC vectorise; other compilers decide alone.
#if defined(__GNUC__) && !defined(__clang__)
#define TFM_IVDEP _Pragma("GCC ivdep")
#else
#define TFM_IVDEP
#endif

namespace tfm {

namespace {

// exp(x) by Cody-Waite range reduction x = n ln2 + r, |r| <= ln2/2, and a degree-6
// polynomial for exp(r) (Cephes coefficients); 2^n is built in the exponent bits.
inline float exp_core(float input) {
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kLn2Hi = 0.693359375f;
    constexpr float kLn2Lo = -2.12194440e-4f;
    constexpr float kMin = -87.3365f;  // below: exp underflows; clamp keeps 2^n normal
    constexpr float kMax = 88.3762f;
    float x = input > kMin ? input : kMin;  // NaN -> kMin here; restored below
    x = x < kMax ? x : kMax;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    float t = x * kLog2e + kRound;
    float n = t - kRound;
    float r = x - n * kLn2Hi;
    r = r - n * kLn2Lo;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * r * r + r + 1.0f;
    std::int32_t e = (static_cast<std::int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &e, sizeof scale);
    float result = y * scale;
    return input != input ? input : result;  // NaN stays NaN
}

}  // namespace


float exp_shifted(float* y, const float* x, std::size_t n, float shift) {
    float acc[kSumLanes] = {};
    std::size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            float v = exp_core(x[i + l] - shift);
            y[i + l] = v;
            acc[l] += v;
        }
    }
    for (std::size_t l = 0; i < n; ++i, ++l) {
        float v = exp_core(x[i] - shift);
        y[i] = v;
        acc[l] += v;
    }
    float sum = 0.0f;
    for (float a : acc) sum += a;
    return sum;
}

float max_of(const float* x, std::size_t n) {
    float acc[kSumLanes];
    for (float& a : acc) a = -std::numeric_limits<float>::infinity();
    std::size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes)
        for (std::size_t l = 0; l < kSumLanes; ++l) acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];
    for (std::size_t l = 0; i < n; ++i, ++l) acc[l] = x[i] > acc[l] ? x[i] : acc[l];
    float m = acc[0];
    for (float a : acc) m = a > m ? a : m;
    return m;
}

void tanh_inplace(float* x, std::size_t n) {
TFM_IVDEP
    for (std::size_t i = 0; i < n; ++i) {
        // tanh(v) = sign(v) (1 - 2 / (exp(2|v|) + 1)), exact enough and never NaN for large |v|.
        float v = x[i];
        float a = v < 0 ? -v : v;
        float e = exp_core(2.0f * a);
        float t = 1.0f - 2.0f / (e + 1.0f);
        x[i] = v < 0 ? -t : t;
    }
}

void swish_inplace(float* x, std::size_t n) {
TFM_IVDEP
    for (std::size_t i = 0; i < n; ++i) {
        float v = x[i];
        x[i] = v / (1.0f + exp_core(-v));
    }
}

void gelu_inplace(float* x, std::size_t n) {
TFM_IVDEP
    for (std::size_t i = 0; i < n; ++i) {
        // erf by Abramowitz & Stegun 7.1.26 refined: erf(z) = 1 - poly(t) exp(-z^2), t = 1/(1+pz).
        float v = x[i];
        float z = (v < 0 ? -v : v) * 0.70710678118654752f;
        float t = 1.0f / (1.0f + 0.3275911f * z);
        float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
        float erf_abs = 1.0f - poly * exp_core(-z * z);
        float erf_v = v < 0 ? -erf_abs : erf_abs;
        x[i] = 0.5f * v * (1.0f + erf_v);
    }
}

}  // namespace tfm
