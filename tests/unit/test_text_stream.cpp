// The text tensor format: reading, writing, round trips and malformed input.
#include "helpers.hpp"
#include "tfm/base/error.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::read_all;

namespace {
std::string to_text(const std::function<void(TensorWriter&)>& f) { return tfm_test::write_records(Format::Text, f); }
}  // namespace

TEST_CASE("text: matrices separated by blank lines, comments ignored") {
    auto recs = read_all("# a comment\n1 2.5 3\n4 5 6\n\n\n# another\n7\n8\n");
    REQUIRE(recs.size() == 2);
    CHECK(std::get<FloatArray>(recs[0]) == FloatArray{{1, 2.5f, 3}, {4, 5, 6}});
    IdArray column = IdArray::from_shape({2, 1});
    column(0, 0) = 7;
    column(1, 0) = 8;
    CHECK(std::get<IdArray>(recs[1]) == column);  // all integers: ids
}

TEST_CASE("text: '# shape:' gives other ranks and empty tensors") {
    auto recs = read_all("# shape: 2 2 3\n1 2 3\n4 5 6\n7 8 9\n10 11 12.5\n\n# shape: 3\n1 2 3\n\n# shape:\n42.5\n\n# shape: 0 4\n\n");
    REQUIRE(recs.size() == 4);
    auto a = std::get<FloatArray>(recs[0]);
    CHECK(a.shape() == std::vector<std::size_t>{2, 2, 3});
    CHECK(a(1, 1, 2) == 12.5f);
    CHECK(std::get<IdArray>(recs[1]) == IdArray{1, 2, 3});
    CHECK(std::get<FloatArray>(recs[2])() == 42.5f);
    CHECK(std::get<FloatArray>(recs[3]).shape() == std::vector<std::size_t>{0, 4});
}

TEST_CASE("text: an empty tensor with huge other dimensions is refused (found by fuzzing)") {
    // [0, 1.3e16, 133366] holds nothing, but its strides would overflow a signed 64-bit index.
    CHECK(error_of([] { read_all("# shape: 0 13333333333333333 133366\n\n"); }).find("has more than") !=
          std::string::npos);
    CHECK(error_of([] { read_all("# shape: 2893532222 0 2893532224\n\n"); }).find("has more than") != std::string::npos);
    CHECK(std::get<FloatArray>(read_all("# shape: 0 1000 1000\n\n")[0]).size() == 0);  // reasonable ones still read
}

TEST_CASE("text: CRLF line ends, tabs, commas, a missing final newline") {
    auto recs = read_all("1\t2,3\r\n4 5 6\r\n\r\n+7 -8 9");
    REQUIRE(recs.size() == 2);
    CHECK(std::get<IdArray>(recs[0]) == IdArray{{1, 2, 3}, {4, 5, 6}});
    CHECK(std::get<IdArray>(recs[1]) == IdArray{{7, -8, 9}});
}

TEST_CASE("text: NaN and Inf are accepted") {
    auto f = std::get<FloatArray>(read_all("nan inf -inf 1\n")[0]);
    CHECK(std::isnan(f(0, 0)));
    CHECK(std::isinf(f(0, 1)));
    CHECK(f(0, 2) < 0);
}

TEST_CASE("text: writing then reading gives back every float exactly") {
    FloatArray a = {{0.1f, -1e-30f, 3.4028235e38f}, {1.0f / 3.0f, 0.0f, -7.25f}};
    FloatArray r3 = xt::arange<float>(12.0f).reshape({2, 3, 2}) / 7.0f;
    IdArray ids = {5, 6, 7};
    std::string s = to_text([&](TensorWriter& w) {
        w.write(a);
        w.write(r3);
        w.write(ids);
        w.write(FloatArray::from_shape({0, 3}));
    });
    CHECK(s.find("# shape: 2 3 2\n") != std::string::npos);
    CHECK(s.find("# shape: 0 3\n") != std::string::npos);
    auto recs = read_all(s);
    REQUIRE(recs.size() == 4);
    CHECK(std::get<FloatArray>(recs[0]) == a);
    CHECK(std::get<FloatArray>(recs[1]) == r3);
    CHECK(std::get<IdArray>(recs[2]) == ids);
    CHECK(std::get<FloatArray>(recs[3]).size() == 0);
}

TEST_CASE("text: malformed input gives 'record N: line L: ...' errors") {
    auto err = [](std::string s) { return error_of([&] { read_all(std::move(s)); }); };
    CHECK(err("1 2 3\n4 5\n") == "record 1: line 2: ragged rows: this row has 2 values, the first row has 3");
    CHECK(err("1 2\n\n1 x 3\n") == "record 2: line 3: non-numeric value 'x'");
    CHECK(err("1 2\n\n1 2abc\n") == "record 2: line 3: non-numeric value '2abc'");
    CHECK(err("\xff\xfe 1\n").find("record 1: line 1: non-numeric value '?" "?'") == 0);
    CHECK(err("1e39\n") == "record 1: line 1: value '1e39' is out of float32 range");
    CHECK(err("99999999999999999999\n") == "record 1: line 1: integer '99999999999999999999' is out of int64 range");
    CHECK(std::get<FloatArray>(read_all("1e-50 1\n")[0])(0, 0) == 0.0f);  // underflow is zero
    CHECK(err("# shape: 2 3\n1 2 3\n") == "record 1: line 2: '# shape:' says [2,3] (6 values) but the tensor has 3");
    CHECK(err("# shape: 2 x\n1 2\n").find("malformed '# shape:' line") != std::string::npos);
    CHECK(err("# shape: 6\n1 2 3\n4 5 6\n").find("rows of 3 values do not match shape [6]") != std::string::npos);
    CHECK(err("1 2\n# shape: 2\n1 2\n").find("'# shape:' inside a tensor") != std::string::npos);
    CHECK(err("# shape: 3\n").find("says [3] (3 values) but the tensor has 0") != std::string::npos);
}

TEST_CASE("text: an empty or comment-only input has no records") {
    CHECK(read_all("").empty());
    CHECK(read_all("\n\n# nothing here\n\n").empty());
}

TEST_CASE("text: an integer-looking record converts to floats and a fractional one refuses ids") {
    CHECK(as_float(read_all("1 2\n")[0]) == FloatArray{{1, 2}});
    CHECK(error_of([] { as_ids(read_all("1.5 2\n")[0]); }).find("expected integer ids") == 0);
}
