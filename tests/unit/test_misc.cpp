// Building blocks: fast exp/tanh accuracy, gemm shapes, ranges, the RNG, tables, the
// thread pool, line input.
#include <atomic>
#include <algorithm>
#include <cstring>

#include "helpers.hpp"
#include "bench/bench.hpp"
#include "common/ranges.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/fast_math.hpp"
#include "tfm/base/gemm.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/random.hpp"
#include "bench/table.hpp"

using namespace tfm;
using tfm_test::error_of;

TEST_CASE("fast_math: exp within 3 ulp of std::exp over the whole range, NaN stays NaN") {
    std::vector<float> x, y(20001);
    for (int i = 0; i <= 20000; ++i) x.push_back(-87.0f + 167.0f * float(i) / 20000.0f);
    float sum = exp_shifted(y.data(), x.data(), x.size(), 0.0f);
    double ref_sum = 0, worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        double r = std::exp(double(x[i]));
        ref_sum += r;
        worst = std::max(worst, std::fabs(y[i] - r) / r);
    }
    CHECK(worst < 3.6e-7);
    CHECK(double(sum) == doctest::Approx(ref_sum).epsilon(1e-5));
    float nan_in[3] = {0.0f, std::numeric_limits<float>::quiet_NaN(), -200.0f}, out[3];
    exp_shifted(out, nan_in, 3, 0.0f);
    CHECK(out[0] == 1.0f);
    CHECK(std::isnan(out[1]));
    CHECK(out[2] < 1e-37f);
}

TEST_CASE("fast_math: tanh and max") {
    std::vector<float> x;
    for (int i = -2000; i <= 2000; ++i) x.push_back(float(i) / 100.0f);
    std::vector<float> y = x;
    tanh_inplace(y.data(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == doctest::Approx(std::tanh(x[i])).epsilon(1e-6));
    CHECK(max_of(x.data(), x.size()) == 20.0f);
    CHECK(max_of(x.data(), 0) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("gemm: transposes, strided views, split across threads, shape errors") {
    const std::size_t m = 300, k = 70, n = 90;
    std::vector<float> a(m * k), b(n * k), c(m * n, 0.0f);
    Rng rng(4);
    for (float& v : a) v = rng.uniform(-1, 1);
    for (float& v : b) v = rng.uniform(-1, 1);
    gemm(mat(c.data(), m, n), mat(a.data(), m, k), Op::N, mat(b.data(), n, k), Op::T, 2.0f);
    for (std::size_t i = 0; i < m; i += 37)
        for (std::size_t j = 0; j < n; j += 11) {
            double ref = 0;
            for (std::size_t p = 0; p < k; ++p) ref += double(a[i * k + p]) * b[j * k + p];
            CHECK(c[i * n + j] == doctest::Approx(2 * ref).epsilon(1e-5));
        }
    CHECK(error_of([&] { gemm(mat(c.data(), m, n), mat(a.data(), m, k), Op::N, mat(b.data(), n, k), Op::N); })
              .find("gemm: shapes do not match") == 0);
    // k == 0 gives beta * C, and zeros (not NaN) for beta 0.
    std::vector<float> junk(4, std::numeric_limits<float>::quiet_NaN());
    gemm(mat(junk.data(), 2, 2), mat(a.data(), 2, 0), Op::N, mat(b.data(), 0, 2), Op::N);
    CHECK(junk == std::vector<float>(4, 0.0f));
}

TEST_CASE("gemm: the same bits for 1, 2 and 3 threads, for every transpose, split or not") {
    // Large enough to be split between threads (by row slabs and column blocks), with row
    // counts that are not multiples of the kernel's row group, and a vocabulary-sized n.
    struct Shape3 { std::size_t m, n, k; };
    const Shape3 shapes[] = {{301, 512, 128}, {250, 1000, 96}, {37, 3000, 64}, {613, 700, 300}, {9001, 48, 40}};
    CHECK((gemm_row_quantum() == 12 || gemm_row_quantum() == 24));
    for (const Shape3 sh : shapes)
        for (Op op_a : {Op::N, Op::T})
            for (Op op_b : {Op::N, Op::T})
                for (float beta : {0.0f, 1.0f}) {
                    const std::size_t m = sh.m, n = sh.n, k = sh.k;
                    const auto a = tfm_test::random_vec(m * k, 11);  // stored [m,k] (N) or [k,m] (T)
                    const auto b = tfm_test::random_vec(n * k, 12);  // stored [k,n] (N) or [n,k] (T)
                    const auto c0 = tfm_test::random_vec(m * n, 13);
                    auto product = [&](int threads) {
                        std::vector<float> c(c0);
                        set_num_threads(threads);
                        gemm(mat(c.data(), m, n), op_a == Op::N ? mat(a.data(), m, k) : mat(a.data(), k, m), op_a,
                             op_b == Op::N ? mat(b.data(), k, n) : mat(b.data(), n, k), op_b, 1.0f, beta);
                        return c;
                    };
                    const auto one = product(1);
                    CHECK_MESSAGE((product(2) == one && product(3) == one),
                                  "m=" << m << " n=" << n << " k=" << k << " op_a=" << int(op_a) << " op_b=" << int(op_b)
                                       << " beta=" << beta);
                    double ref = beta * c0[n + 2];  // element (1,2) against a double-precision sum
                    for (std::size_t p = 0; p < k; ++p)
                        ref += double(op_a == Op::N ? a[k + p] : a[p * m + 1]) * (op_b == Op::N ? b[p * n + 2] : b[2 * k + p]);
                    CHECK(one[n + 2] == doctest::Approx(ref).epsilon(1e-4));
                }
    set_num_threads(0);
}

TEST_CASE("bench: ranges") {
    CHECK(parse_range("256:4096:x2") == std::vector<std::size_t>{256, 512, 1024, 2048, 4096});
    CHECK(parse_range("128:512:+128") == std::vector<std::size_t>{128, 256, 384, 512});
    CHECK(parse_range("64,128,512") == std::vector<std::size_t>{64, 128, 512});
    CHECK(parse_range("100:300") == std::vector<std::size_t>{100, 200});
    CHECK(error_of([] { parse_range("10:5:x2"); }).find("start <= end") != std::string::npos);
    CHECK(error_of([] { parse_range("1:5:x1"); }).find("must grow") != std::string::npos);
    CHECK(error_of([] { parse_range("a,b"); }).find("not a positive integer") != std::string::npos);
}

TEST_CASE("bench: timing statistics") {
    int calls = 0;
    Timing t = time_it([&] { ++calls; }, {2, 5, 0.0});
    CHECK(calls == 7);
    CHECK(t.seconds.size() == 5);
    CHECK(t.min <= t.median);
    CHECK(t.median <= t.max);
}

TEST_CASE("random: the same seed gives the same stream; uniform in [0,1)") {
    Rng a(42), b(42), c(43);
    for (int i = 0; i < 100; ++i) {
        std::uint64_t x = a.next();
        CHECK(x == b.next());
        CHECK(x != c.next());
    }
    Rng r(1);
    double mean = 0;
    for (int i = 0; i < 100000; ++i) {
        float u = r.uniform();
        REQUIRE(u >= 0.0f);
        REQUIRE(u < 1.0f);
        mean += u;
    }
    CHECK(mean / 100000 == doctest::Approx(0.5).epsilon(0.01));
}

TEST_CASE("table: aligned, CSV, markdown and JSON") {
    Table t({"n", "name"});
    t.add({"1", "a,b"});
    t.add({"100", "c"});
    CHECK(t.render(TableFormat::Aligned) == "  n  name\n  1   a,b\n100     c\n");
    CHECK(t.render(TableFormat::Csv) == "n,name\n1,\"a,b\"\n100,c\n");
    CHECK(t.render(TableFormat::Markdown).find("|-----|------|") != std::string::npos);
    CHECK(tables_to_json({{"rows", t}}).find("\"n\": 100,") != std::string::npos);  // integers stay integers
    CHECK(error_of([&] { t.add({"1"}); }).find("1 cells for 2 columns") != std::string::npos);
}

TEST_CASE("parallel: every index once, exceptions reach the caller, nesting runs serially") {
    std::vector<std::atomic<int>> hits(1000);
    parallel_for(1000, [&](std::size_t i) { hits[i]++; });
    for (auto& h : hits) CHECK(h.load() == 1);
    CHECK(error_of([] { parallel_for(100, [](std::size_t i) { if (i == 57) throw Error("task 57"); }); }) == "task 57");
    std::atomic<int> inner{0};
    parallel_for(4, [&](std::size_t) { parallel_for(10, [&](std::size_t) { inner++; }); });
    CHECK(inner.load() == 40);
}

TEST_CASE("io: lines, a final line without newline, and the line limit") {
    Input in = Input::from_string("a\r\nbb\n\nlast");
    std::string line;
    std::vector<std::string> lines;
    while (in.getline(line)) lines.push_back(line);
    CHECK(lines == std::vector<std::string>{"a\r", "bb", "", "last"});
    Input big = Input::from_string(std::string(100, 'x') + "\n");
    CHECK(error_of([&] { big.getline(line, 50); }).find("line longer than 50 bytes") == 0);
}
