// Power-law fits and crossovers on synthetic timings with known exponents.
#include <cmath>

#include "helpers.hpp"
#include "bench/fit.hpp"
#include "tfm/base/random.hpp"

using namespace tfm;
using tfm_test::error_of;

TEST_CASE("fit: exponents of n and D recovered from noisy synthetic timings") {
    Rng rng(4);
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (double n = 128; n <= 8192; n *= 2)
        for (double d = 64; d <= 1024; d *= 2) {
            x.push_back({n, d});
            y.push_back(3e-9 * n * n * d * (1.0 + 0.02 * rng.uniform(-1, 1)));  // +-2% noise
        }
    PowerFit f = fit_power_law(x, y);
    CHECK(f.points == x.size());
    CHECK(f.exponents[0] == doctest::Approx(2.0).epsilon(0.01));
    CHECK(f.exponents[1] == doctest::Approx(1.0).epsilon(0.01));
    CHECK(std::exp(f.log_c) == doctest::Approx(3e-9).epsilon(0.05));
    CHECK(f.r2 > 0.999);
    CHECK(format_power_law(f, {"n", "D"}).find("n^2.00 · D^1.00") == 0);
    CHECK(f.predict({1000, 100}) == doctest::Approx(3e-9 * 1e6 * 100).epsilon(0.05));
}

TEST_CASE("fit: a variable that does not vary gets exponent 0; poor fits show in R^2") {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (double n = 2; n <= 1024; n *= 2) {
        x.push_back({n, 512});
        y.push_back(5.0 * std::pow(n, 1.5));
    }
    PowerFit f = fit_power_law(x, y);
    CHECK(f.exponents[0] == doctest::Approx(1.5));
    CHECK(f.exponents[1] == 0.0);
    CHECK(f.r2 == doctest::Approx(1.0));
    CHECK(format_power_law(f, {"n", "D"}) == "n^1.50");
    // A zigzag is not a power law.
    std::vector<double> zig;
    for (std::size_t i = 0; i < x.size(); ++i) zig.push_back(i % 2 ? 10.0 : 1.0);
    CHECK(fit_power_law(x, zig).r2 < 0.2);
}

TEST_CASE("fit: bad input is refused") {
    CHECK(error_of([] { fit_power_law({}, {}); }).find("no points") != std::string::npos);
    CHECK(error_of([] { fit_power_law({{1}, {2}}, {1, 0}); }).find("values must be positive") != std::string::npos);
    CHECK(error_of([] { fit_power_law({{1}, {-2}}, {1, 2}); }).find("variables must be positive") != std::string::npos);
    CHECK(error_of([] { fit_power_law({{1, 1}, {2, 2}, {4, 4}}, {1, 2, 3}); }).find("do not vary independently") !=
          std::string::npos);
}

TEST_CASE("fit: crossover of two measured curves") {
    std::vector<double> n = {16, 32, 64, 128, 256, 512};
    std::vector<double> quad, lin;
    for (double v : n) quad.push_back(v * v), lin.push_back(100 * v);
    auto c = crossover(n, quad, lin);  // n^2 = 100 n at n = 100
    REQUIRE(c.has_value());
    CHECK(*c == doctest::Approx(100.0).epsilon(1e-9));
    CHECK(crossover(n, lin, lin).value_or(0) == 512);  // equal curves: at the last point
    std::vector<double> noisy = quad;
    noisy[0] = 1e4;  // overhead at the smallest size: a spurious early crossing is not reported
    CHECK(crossover(n, noisy, lin).value_or(0) == doctest::Approx(100.0));
    std::vector<double> far;
    for (double v : n) far.push_back(1e6 * v);
    CHECK_FALSE(crossover(n, quad, far).has_value());
}
