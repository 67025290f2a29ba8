// safetensors: atomic writing, mapped reading, conversions and full validation.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "helpers.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/safetensors.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::TempDir;

namespace {

// A file of header JSON text plus data bytes, as a hostile writer might make it.
std::string raw_file(const TempDir& dir, const std::string& header, const std::string& data,
                     std::uint64_t claimed_len = UINT64_MAX) {
    std::string path = dir.file("raw.safetensors");
    std::ofstream f(path, std::ios::binary);
    std::uint64_t n = claimed_len == UINT64_MAX ? header.size() : claimed_len;
    for (int i = 0; i < 8; ++i) f.put(char((n >> (8 * i)) & 0xff));
    f << header << data;
    return path;
}

}  // namespace

TEST_CASE("safetensors: save then open gives back names, shapes, values, metadata") {
    TempDir dir;
    FloatArray w = {{1, 2, 3}, {4, 5, 6}};
    FloatArray b = {0.5f, -0.5f};
    save_safetensors(dir.file("m.safetensors"), {{"layer.weight", w.data(), {2, 3}}, {"layer.bias", b.data(), {2}}},
                     {{"format", "pt"}});
    auto st = SafeTensors::open(dir.file("m.safetensors"));
    CHECK(st.tensors().size() == 2);
    CHECK(st.get("layer.weight") == w);
    CHECK(st.get("layer.bias", {2}) == b);
    CHECK(st.metadata().at("format") == "pt");
    // No temporary file is left behind.
    CHECK(std::system(("test $(ls '" + dir.path + "' | wc -l) -eq 1").c_str()) == 0);
}

TEST_CASE("safetensors: F16, BF16 and F64 are converted to float32") {
    TempDir dir;
    // 1.0, -2.0, 0.5 in half: 0x3C00, 0xC000, 0x3800; in bfloat16: 0x3F80, 0xC000, 0x3F00.
    std::string data("\x00\x3c\x00\xc0\x00\x38" "\x80\x3f\x00\xc0\x00\x3f", 12);
    double d[2] = {1.25, -3.5};
    data.append(reinterpret_cast<const char*>(d), 16);
    std::string header = R"({"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},)"
                         R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[6,12]},)"
                         R"("d":{"dtype":"F64","shape":[2],"data_offsets":[12,28]}})";
    auto st = SafeTensors::open(raw_file(dir, header, data));
    CHECK(st.get("h") == FloatArray{1.0f, -2.0f, 0.5f});
    CHECK(st.get("b") == FloatArray{1.0f, -2.0f, 0.5f});
    CHECK(st.get("d") == FloatArray{1.25f, -3.5f});
}

TEST_CASE("safetensors: writing F16 and BF16 rounds to nearest even, exhaustively for F16") {
    TempDir dir;
    // Every finite half bit pattern (exponent below 31), decoded by the reader.
    std::string bits;
    std::vector<std::uint32_t> patterns;
    for (std::uint32_t h = 0; h < 65536; ++h)
        if ((h & 0x7c00) != 0x7c00) bits += char(h & 0xff), bits += char(h >> 8), patterns.push_back(h);
    const std::size_t n = patterns.size();
    FloatArray all = SafeTensors::open(raw_file(dir, R"({"h":{"dtype":"F16","shape":[)" + std::to_string(n) +
                                                         R"(],"data_offsets":[0,)" + std::to_string(2 * n) + "]}}",
                                                bits)).get("h");
    // Written back as F16, every value gives its own bit pattern.
    save_safetensors(dir.file("h.safetensors"), {{"h", all.data(), {n}}}, {}, "F16");
    std::ifstream f(dir.file("h.safetensors"), std::ios::binary);
    std::string file((std::istreambuf_iterator<char>(f)), {});
    const std::string written = file.substr(file.size() - 2 * n);
    std::size_t same = 0;
    for (std::size_t i = 0; i < n; ++i)
        same += (std::uint8_t(written[2 * i]) | (std::uint32_t(std::uint8_t(written[2 * i + 1])) << 8)) == patterns[i];
    CHECK(same == n);
    // Midpoints between neighbouring positive halves round to the even one.
    std::vector<float> mids;
    for (std::uint32_t h = 0; h + 1 < 0x7c00; ++h) mids.push_back(0.5f * (all[h] + all[h + 1]));
    save_safetensors(dir.file("m.safetensors"), {{"m", mids.data(), {mids.size()}}}, {}, "F16");
    FloatArray back = SafeTensors::open(dir.file("m.safetensors")).get("m");
    std::size_t even = 0;
    for (std::uint32_t h = 0; h + 1 < 0x7c00; ++h) even += back[h] == all[(h & 1) ? h + 1 : h];
    CHECK(even == 0x7c00 - 1);
    // Past 65504 rounds to Inf, which F16 weights may not hold: refused, naming the value's place,
    // and nothing is left behind. 65519 still rounds down to 65504.
    for (float big : {65520.0f, 1e9f, -1e6f}) {
        std::vector<float> v = {1.0f, 65519.0f, big};
        const std::string e = error_of([&] { save_safetensors(dir.file("big.safetensors"), {{"v", v.data(), {1, 3}}}, {}, "F16"); });
        CHECK(e.find("tensor 'v' holds") != std::string::npos);
        CHECK(e.find("at [0,2], outside what F16 holds (largest 65504)") != std::string::npos);
        CHECK(::access(dir.file("big.safetensors").c_str(), F_OK) != 0);
    }
    // Non-finite values are refused in every dtype (weights must be finite), F32 included.
    for (const char* dtype : {"F32", "F16", "BF16", "I8"}) {
        std::vector<float> v = {1.0f, INFINITY, 2.0f, 3.0f};
        CHECK(error_of([&] { save_safetensors(dir.file("inf.safetensors"), {{"v", v.data(), {2, 2}, true}}, {}, dtype); })
                  .find("tensor 'v' holds Inf at [0,1]") != std::string::npos);
    }
    // Non-finite values in a file are refused when read, in every float dtype, naming the place.
    const std::string nan_f16("\x00\x3c\x00\x7e", 4), inf_bf16("\x80\x3f\x80\xff", 4);
    CHECK(error_of([&] {
              SafeTensors::open(raw_file(dir, R"({"h":{"dtype":"F16","shape":[1,2],"data_offsets":[0,4]}})", nan_f16)).get("h");
          }).find("tensor 'h' holds NaN at [0,1]") != std::string::npos);
    CHECK(error_of([&] {
              SafeTensors::open(raw_file(dir, R"({"h":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", inf_bf16)).get("h");
          }).find("tensor 'h' holds -Inf at [1]") != std::string::npos);
    // BF16: the upper half of the float, ties to even (values as PyTorch rounds them).
    std::vector<float> b = {1.0f, 1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.5f, 3.0e38f};
    save_safetensors(dir.file("b.safetensors"), {{"b", b.data(), {5}}}, {}, "BF16");
    CHECK(SafeTensors::open(dir.file("b.safetensors")).get("b") ==
          FloatArray{1.0f, 1.0f, 1.0f + 1.0f / 64, -2.5f, 3.00405527e38f});
    CHECK(error_of([&] { save_safetensors(dir.file("x.safetensors"), {{"b", b.data(), {5}}}, {}, "I16"); })
              .find("cannot write dtype I16") != std::string::npos);
}

TEST_CASE("safetensors: I8 stores marked matrices as int8 rows with a scale each, the rest as F32") {
    TempDir dir;
    // w [3,4]: a row with an exact maximum, a row of zeros, a row of mixed signs; bias [3].
    std::vector<float> w = {1.0f, -0.5f, 0.25f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, -3.0f, 1.5f, 0.001f, 2.9f};
    std::vector<float> bias = {0.1f, -0.2f, 0.3f};
    const std::string path = dir.file("q.safetensors");
    save_safetensors(path, {{"w", w.data(), {3, 4}, true}, {"b", bias.data(), {3}, true}, {"u", w.data(), {3, 4}}}, {},
                     "I8");
    SafeTensors st = SafeTensors::open(path);
    CHECK(st.tensors().at("w").dtype == "I8");
    CHECK(st.tensors().at("w_scale").dtype == "F32");
    CHECK(st.shape("w_scale") == Shape{3});
    CHECK(st.tensors().at("b").dtype == "F32");  // not a matrix: kept exact
    CHECK(st.tensors().at("u").dtype == "F32");  // not marked
    CHECK(st.get("b") == FloatArray{0.1f, -0.2f, 0.3f});
    FloatArray q = st.get("w");
    REQUIRE(q.shape() == std::vector<std::size_t>{3, 4});
    // Row scales max|w|/127; every value within half a step of its original.
    const float scales[3] = {1.0f / 127, 0.0f, 3.0f / 127};
    CHECK(st.get("w_scale") == FloatArray{scales[0], scales[1], scales[2]});
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 4; ++c) {
            CHECK(std::fabs(q(r, c) - w[r * 4 + c]) <= 0.5f * scales[r] * 1.0001f);
            CHECK(q(r, c) == float(std::nearbyint(w[r * 4 + c] / (scales[r] > 0 ? scales[r] : 1.0f))) * scales[r]);
        }
    CHECK(q(0, 0) == doctest::Approx(1.0f).epsilon(1e-6));
    CHECK(q(2, 0) == doctest::Approx(-3.0f).epsilon(1e-6));
    // About a quarter of F32: 12 bytes of int8 and 12 of scales against 48.
    CHECK(st.tensors().at("w").end - st.tensors().at("w").begin == 12);
    // NaN or Inf cannot be int8: refused naming the tensor and row, nothing left behind.
    std::vector<float> bad = w;
    bad[9] = std::nanf("");
    const std::string e = error_of([&] { save_safetensors(dir.file("n.safetensors"), {{"w", bad.data(), {3, 4}, true}}, {}, "I8"); });
    CHECK(e.find("tensor 'w' holds NaN at [2,1]") != std::string::npos);
    CHECK(::access(dir.file("n.safetensors").c_str(), F_OK) != 0);
}

TEST_CASE("safetensors: rows read alone are the rows of the whole tensor, in every dtype") {
    TempDir dir;
    const std::vector<float> w = tfm_test::random_vec(7 * 5, 3);
    for (const char* dtype : {"F32", "F16", "BF16", "I8"}) {
        CAPTURE(dtype);
        const std::string path = dir.file(std::string(dtype) + ".safetensors");
        save_safetensors(path, {{"w", w.data(), {7, 5}, true}, {"t", w.data(), {7, 1, 5}}}, {}, dtype);
        SafeTensors st = SafeTensors::open(path);
        CHECK(st.reads_rows());
        for (const char* name : {"w", "t"}) {
            const FloatArray whole = st.get(name);
            std::vector<float> part(3 * 5, -1.0f);
            st.read_rows(name, 2, 3, part.data());
            for (std::size_t i = 0; i < part.size(); ++i) CHECK(part[i] == whole.data()[2 * 5 + i]);
            CHECK(error_of([&] { st.read_rows(name, 5, 3, part.data()); }).find("has no rows [5,8)") != std::string::npos);
        }
    }
}

TEST_CASE("safetensors: empty tensors read, as the format's own test vectors have them (issue 50)") {
    TempDir dir;
    // safetensors' tests serialize an empty I32 tensor [2,0] with data_offsets [0,0].
    SafeTensors st = SafeTensors::open(raw_file(dir, R"({"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0,0]}})", ""));
    CHECK(st.shape("test") == Shape{2, 0});
    // An empty float tensor beside a full one.
    const std::string one("\x00\x00\x80\x3f", 4);
    SafeTensors two = SafeTensors::open(raw_file(
        dir, R"({"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", one));
    CHECK(two.get("e").size() == 0);
    CHECK(two.get("e").shape(1) == 3);
    CHECK(two.get("w")(0) == 1.0f);
    // Past 2^40 elements in its other dimensions, even an empty tensor is refused.
    CHECK(error_of([&] {
              SafeTensors::open(raw_file(dir, R"({"e":{"dtype":"F32","shape":[0,1099511627776,2],"data_offsets":[0,0]}})", ""));
          }).find("tensor 'e': shape [0,1099511627776,2] has more than") != std::string::npos);
}

TEST_CASE("safetensors: every dtype the format defines opens; one tfm cannot use is refused by name when read (issue 50)") {
    TempDir dir;
    // The safetensors Dtype enum: F8_E5M2, F8_E4M3, F8_E8M0 (1 byte), C64 (8 bytes), F4 (4 bits),
    // F6_E2M3 and F6_E3M2 (6 bits): 2 F4 values are one byte, 4 F6 values three.
    const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                               R"("f8":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[4,6]},)"
                               R"("f8b":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[6,7]},)"
                               R"("e8":{"dtype":"F8_E8M0","shape":[1],"data_offsets":[7,8]},)"
                               R"("c":{"dtype":"C64","shape":[1],"data_offsets":[8,16]},)"
                               R"("f4":{"dtype":"F4","shape":[2],"data_offsets":[16,17]},)"
                               R"("f6":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[17,20]},)"
                               R"("f6b":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[20,23]}})";
    std::string data("\x00\x00\x80\x3f", 4);
    data += std::string(19, '\x11');
    const SafeTensors st = SafeTensors::open(raw_file(dir, header, data));
    CHECK(st.get("w")(0) == 1.0f);
    for (const char* name : {"f8", "f8b", "e8", "c", "f4", "f6", "f6b"}) {
        CAPTURE(name);
        CHECK(error_of([&] { st.get(name); }).find("tensor '" + std::string(name) + "' has dtype") != std::string::npos);
    }
    // Sub-byte tensors must fill whole bytes; an unknown dtype is refused at once.
    CHECK(error_of([&] { SafeTensors::open(raw_file(dir, R"({"f4":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", "ab")); })
              .find("is not a whole number of bytes") != std::string::npos);
    CHECK(error_of([&] { SafeTensors::open(raw_file(dir, R"({"x":{"dtype":"F12","shape":[1],"data_offsets":[0,2]}})", "ab")); })
              .find("unknown dtype F12") != std::string::npos);
}

TEST_CASE("safetensors: an I8 tensor without proper row scales is refused") {
    TempDir dir;
    auto err = [&](const std::string& header, const std::string& data) {
        return error_of([&] { SafeTensors::open(raw_file(dir, header, data)); });
    };
    const std::string q4(4, '\x01');
    CHECK(err(R"({"w":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]}})", q4).find("I8 without its row scales 'w_scale'") !=
          std::string::npos);
    CHECK(err(R"({"w":{"dtype":"I8","shape":[4],"data_offsets":[0,4]}})", q4).find("I8 tensors must be matrices") !=
          std::string::npos);
    CHECK(err(R"({"w":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]},"w_scale":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              q4 + std::string(4, '\0'))
              .find("must be [2] floats, not F32 [1]") != std::string::npos);
    CHECK(err(R"({"w":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]},"w_scale":{"dtype":"I32","shape":[2],"data_offsets":[4,12]}})",
              q4 + std::string(8, '\0'))
              .find("must be [2] floats") != std::string::npos);
    // A scale of Inf: refused when read, naming the row.
    const float inf = INFINITY, one = 0.5f;
    std::string scales(8, '\0');
    std::memcpy(&scales[0], &one, 4);
    std::memcpy(&scales[4], &inf, 4);
    const std::string path = raw_file(dir, R"({"w":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]},"w_scale":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                      q4 + scales);
    SafeTensors st = SafeTensors::open(path);
    CHECK(error_of([&] { st.get("w"); }).find("tensor 'w_scale' holds Inf at [1]") != std::string::npos);
}

TEST_CASE("safetensors: every inconsistency is refused with the reason") {
    TempDir dir;
    std::string eight(8, '\0');
    auto err = [&](const std::string& header, const std::string& data, std::uint64_t claimed = UINT64_MAX) {
        return error_of([&] { SafeTensors::open(raw_file(dir, header, data, claimed)); });
    };
    CHECK(error_of([&] { SafeTensors::open(dir.file("missing")); }).find("No such file") != std::string::npos);
    {
        std::ofstream(dir.file("short")) << "abc";
        CHECK(error_of([&] { SafeTensors::open(dir.file("short")); }).find("too short") != std::string::npos);
    }
    CHECK(err("{}", "", 1u << 30).find("header length 1073741824 exceeds") != std::string::npos);
    CHECK(err("{not json", "").find("header: malformed JSON") != std::string::npos);
    CHECK(err("[1,2]", "").find("header is not a JSON object") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2]}})", eight).find("needs dtype, shape and data_offsets") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", eight).find("unknown dtype Q7") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2,-1],"data_offsets":[0,8]}})", eight).find("non-integer dimension") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", eight).find("lie outside the 8 data bytes") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight).find("needs 12 bytes, data_offsets give 8") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight).find("not contiguous") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight).find("not contiguous") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight).find("4 bytes no tensor uses") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight).find("more than") != std::string::npos);
    CHECK(err(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight).find("lie outside") != std::string::npos);

    auto st = SafeTensors::open(raw_file(dir, R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})", eight));
    CHECK(error_of([&] { st.get("nope"); }).find("missing tensor 'nope'") != std::string::npos);
    CHECK(error_of([&] { st.get("a"); }).find("has dtype I32") != std::string::npos);
    CHECK(error_of([&] { st.get("a", {3}); }).find("tensor 'a' has shape [2], expected [3]") != std::string::npos);
}
