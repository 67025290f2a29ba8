// The .npy stream reader and writer: formats, conversions and every malformed input.
#include <cstring>

#include "helpers.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/npy.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::read_all;

namespace {

// A .npy array with an arbitrary header dictionary and payload, version 1 or 2.
std::string npy(const std::string& dict, const std::string& payload, int version = 1) {
    std::string d = dict;
    std::size_t prefix = version == 1 ? 10 : 12;
    while ((prefix + d.size() + 1) % 64) d += ' ';
    d += '\n';
    std::string out(kNpyMagic);
    out += char(version);
    out += char(0);
    std::uint32_t len = std::uint32_t(d.size());
    for (int i = 0; i < (version == 1 ? 2 : 4); ++i) out += char((len >> (8 * i)) & 0xff);
    return out + d + payload;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
    std::string s;
    for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return s;
}

std::string write_stream(const std::function<void(TensorWriter&)>& f) {
    return tfm_test::write_records(Format::Npy, f);
}

}  // namespace

TEST_CASE("npy: float and id records round-trip, rank 0 to 4") {
    FloatArray a0 = 3.5f;
    FloatArray a1 = {1.0f, -2.0f, 3.25f};
    FloatArray a2 = {{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}};
    FloatArray a4 = xt::arange<float>(24.0f).reshape({1, 2, 3, 4});
    IdArray ids = {{1, 2, 3}, {4, 5, 6}};
    FloatArray empty = FloatArray::from_shape({0, 8});
    std::string s = write_stream([&](TensorWriter& w) {
        w.write(a0);
        w.write(a1);
        w.write(a2);
        w.write(a4);
        w.write(ids);
        w.write(empty);
    });
    auto recs = read_all(s);
    REQUIRE(recs.size() == 6);
    CHECK(std::get<FloatArray>(recs[0]) == a0);
    CHECK(std::get<FloatArray>(recs[1]) == a1);
    CHECK(std::get<FloatArray>(recs[2]) == a2);
    CHECK(std::get<FloatArray>(recs[3]) == a4);
    CHECK(std::get<IdArray>(recs[4]) == ids);
    CHECK(std::get<FloatArray>(recs[5]).shape() == std::vector<std::size_t>{0, 8});
}

TEST_CASE("npy: headers are padded so data starts at a multiple of 64") {
    for (Shape shape : {Shape{}, Shape{3}, Shape{2, 5, 64}, Shape(20, 1)}) {
        std::string p = npy_preamble(DType::F32, shape);
        CHECK(p.size() % 64 == 0);
        CHECK(p.back() == '\n');
        CHECK(parse_npy_header(p.substr(10)).shape == shape);
    }
    CHECK(npy_preamble(DType::F32, {5}).find("(5,)") != std::string::npos);
}

TEST_CASE("npy: header dictionaries as NumPy and others write them") {
    auto h = parse_npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
    CHECK(h.dtype == DType::F64);
    CHECK(h.shape == Shape{2, 3});
    h = parse_npy_header("{\"shape\":(7L,),\"fortran_order\":True,\"descr\":\">i4\"}   \n");
    CHECK(h.dtype == DType::I32);
    CHECK(h.big_endian);
    CHECK(h.fortran_order);
    CHECK(h.shape == Shape{7});
    CHECK(parse_npy_header("{'descr': '<i8', 'fortran_order': False, 'shape': ()}").shape.empty());
}

TEST_CASE("npy: float64, int32, big-endian and Fortran order are converted") {
    auto f64 = read_all(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", bytes_of<double>({1.5, -2.25})));
    CHECK(std::get<FloatArray>(f64[0]) == FloatArray{1.5f, -2.25f});
    auto i32 = read_all(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", bytes_of<std::int32_t>({7, -1, 42})));
    CHECK(std::get<IdArray>(i32[0]) == IdArray{7, -1, 42});
    std::string be = bytes_of<float>({1.0f, 2.0f});
    for (std::size_t i = 0; i < be.size(); i += 4) std::reverse(be.begin() + long(i), be.begin() + long(i) + 4);
    auto big = read_all(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be));
    CHECK(std::get<FloatArray>(big[0]) == FloatArray{1.0f, 2.0f});
    // Fortran order: column-major storage of [[1,2,3],[4,5,6]].
    auto fo = read_all(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                           bytes_of<float>({1, 4, 2, 5, 3, 6})));
    CHECK(std::get<FloatArray>(fo[0]) == FloatArray{{1, 2, 3}, {4, 5, 6}});
}

TEST_CASE("npy: every descr spelling np.dtype() reads for a supported type; float64 past float32 refused (issue 50)") {
    // numpy's format.descr_to_dtype reads a descr through np.dtype(): type codes with or without
    // a byte order, and names (numpy's test_format.py writes '<f4' and the like; users write names).
    for (const char* d : {"<f4", "f4", "=f4", "|f4", "f", "<f", "float32"}) {
        CAPTURE(d);
        auto r = read_all(npy(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (2,), }", bytes_of<float>({1.5f, -2.0f})));
        CHECK(std::get<FloatArray>(r[0]) == FloatArray{1.5f, -2.0f});
    }
    for (const char* d : {"<f8", "f8", "d", "<d", "float64", "double", "float"}) {
        CAPTURE(d);
        auto r = read_all(npy(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }", bytes_of<double>({0.25})));
        CHECK(std::get<FloatArray>(r[0]) == FloatArray{0.25f});
    }
    for (const char* d : {"<i8", "i8", "q", "<q", "int64", "int", "long"}) {
        CAPTURE(d);
        auto r = read_all(npy(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }", bytes_of<std::int64_t>({-7})));
        CHECK(std::get<IdArray>(r[0]) == IdArray{-7});
    }
    for (const char* d : {"<i4", "i4", "i", "int32"}) {
        CAPTURE(d);
        auto r = read_all(npy(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }", bytes_of<std::int32_t>({9})));
        CHECK(std::get<IdArray>(r[0]) == IdArray{9});
    }
    // Not dtypes, or not ones tfm reads: refused by name.
    for (const char* d : {"<float32", "<f2", "<c8", "u1", "", "<"}) {
        CAPTURE(d);
        CHECK(error_of([&] { read_all(npy(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }", "abcdefgh")); })
                  .find("unsupported dtype") != std::string::npos);
    }
    // A float64 past float32's range would become Inf: an error naming the record and element.
    const auto e = error_of([&] {
        read_all(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", bytes_of<double>({1.0, 1e300})));
    });
    CHECK(e.find("record 1") != std::string::npos);
    CHECK(e.find("float64 value") != std::string::npos);
    CHECK(e.find("at element 1 is outside float32's range") != std::string::npos);
    // Inf and NaN stay as they are (NaN and Inf pass through a stream unchanged).
    auto inf = read_all(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", bytes_of<double>({HUGE_VAL})));
    CHECK(std::isinf(std::get<FloatArray>(inf[0])(0)));
    // A version numpy refuses (1.1, 4.0) is refused.
    std::string v11 = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", bytes_of<float>({1.0f}));
    v11[7] = 1;
    CHECK(error_of([&] { read_all(v11); }).find("unsupported .npy version 1.1") != std::string::npos);
}

TEST_CASE("npy: version 2.0 headers") {
    auto recs = read_all(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", bytes_of<float>({9.0f}), 2));
    CHECK(std::get<FloatArray>(recs[0]) == FloatArray{9.0f});
}

TEST_CASE("npy: many tiny records stream through") {
    std::string s = write_stream([](TensorWriter& w) {
        for (int i = 0; i < 20000; ++i) w.write(FloatArray{float(i)});
    });
    Input in = Input::from_string(s);
    TensorReader r(in);
    int n = 0;
    while (auto rec = r.next()) {
        CHECK_EQ(std::get<FloatArray>(*rec)(0), float(n));
        ++n;
    }
    CHECK(n == 20000);
}

TEST_CASE("npy: malformed input gives 'record N: ...' errors") {
    const std::string good = write_stream([](TensorWriter& w) { w.write(FloatArray{1.0f, 2.0f}); });
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    auto err = [](std::string bytes) { return error_of([&] { read_all(std::move(bytes)); }); };

    CHECK(err(good.substr(0, 4)).find("record 1: truncated header") == 0);
    CHECK(err(good.substr(0, 9)).find("record 1: truncated header") == 0);
    CHECK(err(good.substr(0, 40)).find("record 1: truncated header") == 0);
    CHECK(err(good + good.substr(0, good.size() - 3)).find("record 2: shape [2] of float32 needs 8 bytes but only 5 remain") == 0);
    // Through a pipe the size is unknown beforehand: the short read is what tells.
    CHECK(error_of([&] { tfm_test::read_pipe(good + good.substr(0, good.size() - 3)); }) ==
          "record 2: truncated data: expected 8 bytes, got 5");
    CHECK(err(good + "garbage!garbage!").find("record 2: bad magic") == 0);
    CHECK(err(good + "\x93NUMPX\x01\x00").find("record 2: bad magic") == 0);
    CHECK(err(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", "abcd")).find("record 1: unsupported dtype '<f2'") == 0);
    CHECK(err(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdefgh")).find("unsupported dtype") != std::string::npos);
    CHECK(err(npy("{'descr': '<f4', 'shape': (2,), }", "abcdefgh")).find("record 1: malformed .npy header: missing key") == 0);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", "")).find("malformed .npy header") != std::string::npos);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,-1), }", "")).find("malformed .npy header") != std::string::npos);
    // Empty, but with dimensions whose strides would overflow (found by fuzzing the text reader).
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4000000000, 4000000000), }", ""))
              .find("has more than") != std::string::npos);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "")).find("unexpected key 'x'") != std::string::npos);
    CHECK(err(npy("['descr']", "")).find("malformed .npy header") != std::string::npos);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } trailing", "")).find("malformed") != std::string::npos);
    // A shape whose element count overflows, and one larger than the input holds.
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "")).find("record 1: shape [4294967296,4294967296] has more than") == 0);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1), }", "")).find("overflows") != std::string::npos);
    CHECK(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }", "abcd")).find("needs 4000000 bytes but only 4 remain") != std::string::npos);
    // A header length beyond the limit is refused before it is read.
    std::string huge(kNpyMagic);
    huge += std::string("\x02\x00\xff\xff\xff\x7f", 6);
    CHECK(err(huge).find("record 1: header of 2147483647 bytes exceeds the limit") == 0);
    CHECK(err(std::string(kNpyMagic) + std::string("\x09\x00\x10\x00", 4)).find("unsupported .npy version 9.0") != std::string::npos);
    CHECK(err(npy(dict, "")).find("needs 8 bytes but only 0 remain") != std::string::npos);
}

TEST_CASE("npy: an empty stream has no records; expect() says what was missing") {
    CHECK(read_all("").empty());
    Input in = Input::from_string("");
    TensorReader r(in);
    CHECK(error_of([&] { r.expect("X [T,D]"); }) == "record 1: empty input (expected X [T,D])");
}

TEST_CASE("npy: NaN and Inf pass through unchanged") {
    float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::string s = write_stream([&](TensorWriter& w) { w.write(FloatArray{nan, inf, -inf}); });
    auto f = std::get<FloatArray>(read_all(s)[0]);
    CHECK(std::isnan(f(0)));
    CHECK(f(1) == inf);
    CHECK(f(2) == -inf);
}
