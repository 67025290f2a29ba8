// Packed weight products (base/packed_matrix.hpp) against a double-precision reference, for
// every compute type this CPU has: shapes, bias, strided views, error bounds, rows that do
// not depend on the batch around them, thread-count invariance, NaN rows, bad shapes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "helpers.hpp"
#include "tfm/base/packed_matrix.hpp"
#include "tfm/base/parallel.hpp"

using namespace tfm;

namespace {

// y = x W^T + b in double: the independent reference.
std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>* b,
                              std::size_t m, std::size_t n, std::size_t k) {
    std::vector<double> y(m * n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double s = b ? (*b)[j] : 0.0;
            for (std::size_t t = 0; t < k; ++t) s += double(x[i * k + t]) * double(w[j * k + t]);
            y[i * n + j] = s;
        }
    return y;
}

// The error bound of a compute type, relative to sum |x||w| of an element.
double tolerance(ComputeType t) {
    switch (t) {
        case ComputeType::Float32: return 1e-5;
        case ComputeType::BFloat16: return 1.6e-2;  // two roundings to 8 bits of mantissa
        case ComputeType::Int8: return 1.6e-2;      // two roundings to 1/254 of a row's range
    }
    return 0;
}

std::vector<ComputeType> supported_types() {
    std::vector<ComputeType> out;
    for (ComputeType t : {ComputeType::Float32, ComputeType::BFloat16, ComputeType::Int8})
        if (compute_type_supported(t)) out.push_back(t);
    return out;
}

std::vector<float> multiply(const PackedMatrix& p, const std::vector<float>& x, std::size_t m, const float* bias) {
    std::vector<float> y(m * p.rows(), -7.0f);
    p.multiply(mat(y.data(), m, p.rows()), mat(x.data(), m, p.cols()), bias);
    return y;
}

}  // namespace

TEST_CASE("packed products match a double-precision reference within the compute type's bound") {
    struct Shape {
        std::size_t m, n, k;
    };
    for (ComputeType t : supported_types()) {
        for (Shape s : {Shape{1, 1, 1}, Shape{1, 600, 32}, Shape{2, 520, 16}, Shape{3, 7, 5}, Shape{32, 512, 64}, Shape{130, 1000, 96}, Shape{600, 300, 40}}) {
            const std::string type = compute_type_name(t);
        CAPTURE(type);
            CAPTURE(s.m);
            CAPTURE(s.n);
            CAPTURE(s.k);
            const auto x = tfm_test::random_vec(s.m * s.k, 1), w = tfm_test::random_vec(s.n * s.k, 2, 0.3f);
            const auto b = tfm_test::random_vec(s.n, 3);
            const PackedMatrix p(mat(w.data(), s.n, s.k), t);
            CHECK(p.rows() == s.n);
            CHECK(p.cols() == s.k);
            for (bool with_bias : {false, true}) {
                const auto y = multiply(p, x, s.m, with_bias ? b.data() : nullptr);
                const auto ref = reference(x, w, with_bias ? &b : nullptr, s.m, s.n, s.k);
                double worst = 0;
                for (std::size_t i = 0; i < s.m; ++i)
                    for (std::size_t j = 0; j < s.n; ++j) {
                        double mag = 0;  // sum |x||w|: the scale rounding errors are relative to
                        for (std::size_t q = 0; q < s.k; ++q) mag += std::fabs(x[i * s.k + q] * w[j * s.k + q]);
                        worst = std::max(worst, std::fabs(y[i * s.n + j] - ref[i * s.n + j]) / (mag + 1e-30));
                    }
                CHECK(worst < tolerance(t));
            }
        }
    }
}

TEST_CASE("packed products: a row's result does not depend on the rows around it, nor on the threads") {
    const std::size_t n = 700, k = 80, m = 70;
    const auto x = tfm_test::random_vec(m * k, 4), w = tfm_test::random_vec(n * k, 5, 0.2f), b = tfm_test::random_vec(n, 6);
    for (ComputeType t : supported_types()) {
        const std::string type = compute_type_name(t);
        CAPTURE(type);
        const PackedMatrix p(mat(w.data(), n, k), t);
        const auto all = multiply(p, x, m, b.data());
        // Any run of rows gives the same bits as the same rows inside the whole batch, on
        // oneDNN's brgemm kernels (what AVX-512 CPUs run); elsewhere to rounding.
        const bool brgemm = p.implementation(1).rfind("brg", 0) == 0 && p.implementation(m).rfind("brg", 0) == 0;
        CAPTURE(p.implementation(1));
        for (std::size_t first : {0, 1, 13, 50})
            for (std::size_t rows : {1, 5, 20}) {
                if (first + rows > m) continue;
                std::vector<float> part(x.begin() + long(first * k), x.begin() + long((first + rows) * k));
                const auto y = multiply(p, part, rows, b.data());
                CAPTURE(first);
                CAPTURE(rows);
                if (brgemm) {
                    CHECK(std::memcmp(y.data(), all.data() + first * n, rows * n * sizeof(float)) == 0);
                } else {
                    for (std::size_t i = 0; i < rows * n; ++i)
                        CHECK(y[i] == doctest::Approx(all[first * n + i]).epsilon(tolerance(t)));
                }
            }
        for (int threads : {1, 3}) {
            set_num_threads(threads);
            const auto again = multiply(p, x, m, b.data());
            CHECK(std::memcmp(again.data(), all.data(), all.size() * sizeof(float)) == 0);
        }
        set_num_threads(0);
    }
}

TEST_CASE("packed products read strided views and write into strided rows") {
    const std::size_t m = 9, n = 40, k = 24, ldx = 31, ldy = 50, ldw = 29;
    const auto xs = tfm_test::random_vec(m * ldx, 7), ws = tfm_test::random_vec(n * ldw, 8);
    std::vector<float> x(m * k), w(n * k);
    for (std::size_t i = 0; i < m; ++i) std::copy(xs.begin() + long(i * ldx), xs.begin() + long(i * ldx + k), x.begin() + long(i * k));
    for (std::size_t j = 0; j < n; ++j) std::copy(ws.begin() + long(j * ldw), ws.begin() + long(j * ldw + k), w.begin() + long(j * k));
    for (ComputeType t : supported_types()) {
        const PackedMatrix strided(ConstMat{ws.data(), n, k, ldw}, t), dense(mat(w.data(), n, k), t);
        std::vector<float> y(m * ldy, 5.0f);
        strided.multiply(Mat{y.data(), m, n, ldy}, ConstMat{xs.data(), m, k, ldx});
        const auto want = multiply(dense, x, m, nullptr);
        for (std::size_t i = 0; i < m; ++i) {
            CHECK(std::memcmp(y.data() + i * ldy, want.data() + i * n, n * sizeof(float)) == 0);
            CHECK(y[i * ldy + n] == 5.0f);  // past the row's columns: untouched
        }
    }
}

TEST_CASE("packed products: NaN and Inf propagate, empty and mismatched shapes") {
    const std::size_t n = 16, k = 8;
    const auto w = tfm_test::random_vec(n * k, 9);
    for (ComputeType t : supported_types()) {
        const std::string type = compute_type_name(t);
        CAPTURE(type);
        const PackedMatrix p(mat(w.data(), n, k), t);
        auto x = tfm_test::random_vec(2 * k, 10);
        x[3] = std::nanf("");
        x[k + 2] = INFINITY;
        const auto y = multiply(p, x, 2, nullptr);
        std::size_t finite = 0;
        for (float v : y) finite += std::isfinite(v);
        CHECK(finite == 0);
        std::vector<float> none;
        p.multiply(mat(none.data(), 0, n), mat(x.data(), 0, k));  // no rows: nothing to do
        std::vector<float> out(2 * 5);
        CHECK_THROWS_AS(p.multiply(mat(out.data(), 2, 5), mat(x.data(), 2, k)), Error);
    }
    if (compute_type_supported(ComputeType::Int8)) {
        auto bad = w;
        bad[5] = INFINITY;
        CHECK(tfm_test::error_of([&] { PackedMatrix(mat(bad.data(), n, k), ComputeType::Int8); }).find("row 0") !=
              std::string::npos);
    }
}

TEST_CASE("packed matrices read a block of rows at a time pack as from the whole matrix") {
    const std::size_t n = 700, k = 48, m = 9;
    const auto w = tfm_test::random_vec(n * k, 21), x = tfm_test::random_vec(m * k, 22);
    for (ComputeType t : supported_types()) {
        const std::string type = compute_type_name(t);
        CAPTURE(type);
        std::vector<std::pair<std::size_t, std::size_t>> asked;
        std::mutex lock;  // blocks are packed in parallel: asked from several threads, in any order
        const PackedMatrix whole(mat(w.data(), n, k), t);
        const PackedMatrix read(n, k, t, [&](std::size_t row0, std::size_t rows, float* dst) {
            {
                const std::lock_guard<std::mutex> hold(lock);
                asked.emplace_back(row0, rows);
            }
            std::copy(w.data() + row0 * k, w.data() + (row0 + rows) * k, dst);
        });
        CHECK(multiply(read, x, m, nullptr) == multiply(whole, x, m, nullptr));
        std::sort(asked.begin(), asked.end());
        REQUIRE(asked.size() == 3);  // blocks of 256 rows, never the whole
        CHECK(asked[0] == std::pair<std::size_t, std::size_t>{0, 256});
        CHECK(asked[2] == std::pair<std::size_t, std::size_t>{512, 188});
    }
}

TEST_CASE("packed matrices give back their rows as the products see them") {
    for (ComputeType t : supported_types()) {
        const std::string type = compute_type_name(t);
        CAPTURE(type);
        for (auto shape : {std::pair<std::size_t, std::size_t>{600, 96}, {300, 40}, {7, 5}, {1000, 64}}) {
            const std::size_t n = shape.first, k = shape.second;  // (clang 14 captures no structured binding)
            CAPTURE(n);
            CAPTURE(k);
            const std::vector<float> w = tfm_test::random_vec(n * k, 11);
            const PackedMatrix p(mat(w.data(), n, k), t);
            std::vector<float> row(k), expect(k);
            std::vector<std::int8_t> q(k);
            for (std::size_t i : {std::size_t(0), n / 2, n - 1, std::min<std::size_t>(n - 1, 257)}) {
                p.row(i, row.data());
                const float* wi = w.data() + i * k;
                if (t == ComputeType::Float32) expect.assign(wi, wi + k);
                if (t == ComputeType::BFloat16)
                    for (std::size_t j = 0; j < k; ++j) {  // round to nearest even on 16 bits
                        std::uint32_t u;
                        std::memcpy(&u, wi + j, 4);
                        u = ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16;
                        std::memcpy(&expect[j], &u, 4);
                    }
                if (t == ComputeType::Int8) {
                    float amax = 0;
                    for (std::size_t j = 0; j < k; ++j) amax = std::max(amax, std::fabs(wi[j]));
                    for (std::size_t j = 0; j < k; ++j) expect[j] = std::nearbyint(wi[j] * (127.0f / amax)) * (amax / 127.0f);
                }
                for (std::size_t j = 0; j < k; ++j) CHECK(row[j] == doctest::Approx(expect[j]).epsilon(1e-6));
            }
            CHECK_THROWS_AS(p.row(n, row.data()), Error);
        }
    }
}

TEST_CASE("compute types: names, auto, and a clear refusal where the CPU lacks them") {
    CHECK(parse_compute_type("float32") == ComputeType::Float32);
    CHECK(parse_compute_type("bfloat16") == ComputeType::BFloat16);
    CHECK(parse_compute_type("int8") == ComputeType::Int8);
    CHECK(compute_type_supported(parse_compute_type("auto")));
    CHECK(std::string(compute_type_name(ComputeType::BFloat16)) == "bfloat16");
    CHECK(tfm_test::error_of([] { parse_compute_type("fp16"); }).find("float32, bfloat16, int8 or auto") != std::string::npos);
    for (ComputeType t : {ComputeType::BFloat16, ComputeType::Int8})
        if (!compute_type_supported(t))
            CHECK(tfm_test::error_of([&] { require_compute_type(t); }).find("use float32") != std::string::npos);
}
