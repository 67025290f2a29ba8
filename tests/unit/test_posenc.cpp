// Sinusoidal positional encoding: PyTorch fixtures in both layouts, odd D, and the
// relative-position properties the paper relies on.
#include "helpers.hpp"
#include "tfm/base/error.hpp"
#include "tfm/nn/posenc.hpp"

using namespace tfm;

namespace {
FloatArray golden(const std::string& name) {
    return as_float(std::move(tfm_test::read_file(std::string(TFM_GOLDEN) + "/" + name)[0]));
}
}  // namespace

TEST_CASE("posenc: matches the paper's formula computed by PyTorch in float64") {
    struct Case {
        std::size_t n, d;
        PeLayout layout;
        double offset;
        const char* file;
    };
    for (const Case& c : {Case{50, 64, PeLayout::Interleaved, 0, "pe_interleaved_n50_d64_o0.npy"},
                          Case{50, 64, PeLayout::Halves, 0, "pe_halves_n50_d64_o0.npy"},
                          Case{9, 7, PeLayout::Interleaved, 3, "pe_interleaved_n9_d7_o3.npy"},
                          Case{9, 7, PeLayout::Halves, 0, "pe_halves_n9_d7_o0.npy"},
                          Case{1000, 128, PeLayout::Interleaved, 0, "pe_interleaved_n1000_d128_o0.npy"}}) {
        CAPTURE(c.file);
        PeOptions opt;
        opt.layout = c.layout;
        opt.offset = c.offset;
        tfm_test::check_close(sinusoidal_encoding(c.n, c.d, opt), golden(c.file), 0.0, 1e-6);
    }
}

TEST_CASE("posenc: row 0 is sin 0 = 0 and cos 0 = 1; layouts hold the same numbers") {
    auto a = sinusoidal_encoding(3, 8, {});
    PeOptions h;
    h.layout = PeLayout::Halves;
    auto b = sinusoidal_encoding(3, 8, h);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(a(0, 2 * i) == 0.0f);
        CHECK(a(0, 2 * i + 1) == 1.0f);
        CHECK(a(2, 2 * i) == b(2, i));
        CHECK(a(2, 2 * i + 1) == b(2, 4 + i));
    }
}

TEST_CASE("posenc: --add semantics: x * scale + PE, from the offset") {
    xt::xtensor<float, 2> x = xt::ones<float>({4, 6});
    PeOptions opt;
    opt.offset = 2;
    add_positional_encoding(mat(x.data(), 4, 6), 2.0f, opt);
    auto pe = sinusoidal_encoding(4, 6, opt);
    tfm_test::check_close(x, xt::xtensor<float, 2>(pe + 2.0f), 0, 1e-6);
}

TEST_CASE("posenc: PE(pos+k) is a fixed rotation of PE(pos) for every frequency") {
    auto t = relative_rotation_table(1000, 64, 7, {});
    REQUIRE(t.shape(0) == 32);
    REQUIRE(t.shape(1) == 7);
    for (std::size_t i = 0; i < 32; ++i) {
        double w = std::pow(10000.0, -2.0 * double(i) / 64.0);
        CHECK(t(i, 1) == doctest::Approx(w).epsilon(1e-6));
        CHECK(t(i, 2) == doctest::Approx(std::cos(7 * w)).epsilon(1e-6));
        CHECK(t(i, 3) == doctest::Approx(std::sin(7 * w)).epsilon(1e-6));
        CHECK(t(i, 4) == -t(i, 3));
        CHECK(t(i, 5) == t(i, 2));
        CHECK(t(i, 6) < 1e-6);  // only the float32 rounding of the encodings
    }
}

TEST_CASE("posenc: PE(pos).PE(pos+k) falls with distance and is symmetric in k") {
    auto t = distance_dot_table(128, 20, 50, {});
    REQUIRE(t.shape(0) == 41);
    CHECK(t(20, 0) == 0.0f);
    CHECK(t(20, 1) == doctest::Approx(64.0).epsilon(1e-5));  // D/2 pairs of sin^2 + cos^2
    for (std::size_t k = 1; k <= 20; ++k) {
        CHECK(t(20 + k, 1) == doctest::Approx(t(20 - k, 1)).epsilon(1e-4));  // no direction
        if (k <= 10) CHECK(t(20 + k, 1) < t(20 + k - 1, 1));                 // falls with |k|
    }
}

TEST_CASE("posenc: bad dimensions and layouts are refused") {
    CHECK(tfm_test::error_of([] { sinusoidal_encoding(3, 0, {}); }).find("at least 1") != std::string::npos);
    CHECK(tfm_test::error_of([] { parse_pe_layout("spiral"); }).find("unknown layout 'spiral'") == 0);
}
