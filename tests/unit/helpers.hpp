// Small helpers shared by the unit tests.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/config.hpp"
#include "tfm/base/random.hpp"
#include "tfm/io/stream.hpp"

namespace tfm_test {

#ifdef TFM_GOLDEN
// A file of the committed fixtures (tests/golden/data).
inline std::string golden(const std::string& name) { return std::string(TFM_GOLDEN) + "/" + name; }
#endif

// The tiny preset shrunk for the tests: D = d_model, H heads, F = ffn, the same number of
// layers on both sides, V = vocab.
inline tfm::ModelConfig small_config(std::size_t vocab, std::size_t d_model, std::size_t heads, std::size_t ffn,
                                     std::size_t layers) {
    tfm::ModelConfig c = tfm::preset_config("tiny", vocab);
    c.d_model = d_model;
    c.encoder_heads = c.decoder_heads = heads;
    c.encoder_ffn = c.decoder_ffn = ffn;
    c.encoder_layers = c.decoder_layers = layers;
    return c;
}

// n values uniform in [-scale, scale), the same for a seed.
inline std::vector<float> random_vec(std::size_t n, std::uint64_t seed, float scale = 1.0f) {
    tfm::Rng rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform(-scale, scale);
    return v;
}

// A temporary directory, removed with everything in it at the end of the scope.
struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/tfm-test-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
    std::string file(const std::string& name) const { return path + "/" + name; }
};

// All records of a stream held in memory.
inline std::vector<tfm::Record> read_all(std::string bytes) {
    tfm::Input in = tfm::Input::from_string(std::move(bytes));
    tfm::TensorReader r(in);
    std::vector<tfm::Record> out;
    while (auto rec = r.next()) out.push_back(std::move(*rec));
    return out;
}

// What a writer in `format` produces for the records f writes.
inline std::string write_records(tfm::Format format, const std::function<void(tfm::TensorWriter&)>& f) {
    tfm::Output out = tfm::Output::to_string();
    tfm::TensorWriter w(out, format);
    f(w);
    return out.str();
}

// The same, read through a pipe (no size known in advance). bytes must fit the pipe buffer.
inline std::vector<tfm::Record> read_pipe(const std::string& bytes) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(bytes.size() < 65536);
    REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == ssize_t(bytes.size()));
    ::close(fds[1]);
    std::vector<tfm::Record> out;
    try {
        tfm::Input in(fds[0]);
        tfm::TensorReader r(in);
        while (auto rec = r.next()) out.push_back(std::move(*rec));
    } catch (...) {
        ::close(fds[0]);
        throw;
    }
    ::close(fds[0]);
    return out;
}

inline std::vector<tfm::Record> read_file(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    REQUIRE_MESSAGE(f != nullptr, "cannot open " << path);
    std::string bytes;
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
    return read_all(std::move(bytes));
}

// The error message of what f throws ("" when it does not throw).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const tfm::Error& e) {
        return e.what();
    }
    return "";
}

template <class A, class B>
void check_close(const A& actual, const B& expected, double rtol = 1e-5, double atol = 1e-6) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        double a = actual.data()[i], e = expected.data()[i];
        if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) {
            FAIL("element " << i << " is " << a << ", expected " << e);
        }
    }
}

}  // namespace tfm_test
