// Failures that must be loud, at the library's level: bounded JSON, checked outputs, files
// that are not regular, staged and locked directories, exact integers in text, list options.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <fstream>
#include <string>

#include "helpers.hpp"
#include "common/ranges.hpp"
#include "tfm/io/dir_guard.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/stream.hpp"

using namespace tfm;
using tfm_test::error_of;

TEST_CASE("json: depth is bounded while parsing; values are quoted short") {
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    CHECK(error_of([&] { parse_json("{\"a\": " + deep + "}", "x.json"); })
              .find("x.json: JSON nested deeper than 64 levels") != std::string::npos);
    const std::string ok64 = std::string(63, '[') + std::string(63, ']');
    CHECK(parse_json("{\"a\": " + ok64 + "}", "x.json").is_object());
    CHECK(error_of([] { parse_json("{\"a\": ", "x.json"); }).find("x.json: malformed JSON") != std::string::npos);
    const std::string huge_token = "{\"a\": " + std::string(100000, 'x') + "}";
    CHECK(error_of([&] { parse_json(huge_token, "x.json"); }).size() < 300);
    CHECK(json_excerpt(Json::parse("[1,2,3]")) == "an array of 3");
    CHECK(json_excerpt(Json::parse("{\"a\":1}")) == "an object of 1 keys");
    CHECK(json_excerpt(Json(std::string(1000, 'x'))).size() < 60);
    CHECK(json_excerpt(Json("a\x01" "b")) == "\"a?b\"");
}

TEST_CASE("json: typed getters refuse what does not fit, naming the key") {
    const Json j = Json::parse(R"({"i": 3, "f": 2.7, "big": 99999999999999999999, "neg": -1, "u": 18446744073709551615,
                                   "s": "3", "b": true, "n": null, "x": 1e300})");
    CHECK(json_int(j, "i", 1, 10, "c") == 3);
    CHECK(error_of([&] { json_int(j, "f", 1, 10, "c"); }).find("c: key 'f' must be an integer from 1 to 10, got 2.7") != std::string::npos);
    CHECK(error_of([&] { json_int(j, "big", 0, 100, "c"); }).find("got 1e+20") != std::string::npos);
    CHECK(error_of([&] { json_int(j, "neg", 0, 100, "c"); }).find("got -1") != std::string::npos);
    CHECK(error_of([&] { json_int(j, "u", 0, 100, "c"); }).find("got 18446744073709551615") != std::string::npos);
    CHECK(error_of([&] { json_int(j, "s", 0, 100, "c"); }).find("got \"3\"") != std::string::npos);
    CHECK(error_of([&] { json_int(j, "missing", 0, 100, "c"); }).find("c: missing key 'missing'") != std::string::npos);
    CHECK(json_number(j, "f", 0, 3, "c") == doctest::Approx(2.7));
    CHECK(error_of([&] { json_number(j, "x", 0, 1, "c"); }).find("key 'x' must be a number from 0 to 1") != std::string::npos);
    CHECK(json_bool(j, "b", "c"));
    CHECK_FALSE(json_has(j, "n"));
    CHECK(error_of([&] { json_string(j, "i", "c"); }).find("key 'i' must be a string, got 3") != std::string::npos);
}

TEST_CASE("io: write errors are thrown, or kept for the tool when a destructor meets them") {
    const int fd = ::open("/dev/full", O_WRONLY);
    REQUIRE(fd >= 0);
    {
        Output out(fd);
        out.write("abc");
        CHECK(error_of([&] { out.flush(); }).find("write error: No space left on device") != std::string::npos);
    }
    CHECK(take_unreported_write_error().empty());  // thrown already: nothing kept
    {
        Output out(fd);
        out.write("abc");
    }  // the destructor's flush fails
    CHECK(take_unreported_write_error() == "write error: No space left on device");
    CHECK(take_unreported_write_error().empty());
    ::close(fd);
    CHECK(error_of([] {
              Output out = Output::create_file("/dev/full");
              out.write("abc");
              out.close();
          }).find("/dev/full: write error: No space left on device") != std::string::npos);
    tfm_test::TempDir dir;
    CHECK(error_of([&] { Output::create_file(dir.file("no/such/dir")); }).find("cannot write") != std::string::npos);
    write_file_atomic(dir.file("a.txt"), "hello");
    CHECK(read_regular_file(dir.file("a.txt"), 100) == "hello");
    CHECK(error_of([&] { read_regular_file(dir.file("a.txt"), 3); }).find("more than the limit of 3") != std::string::npos);
}

TEST_CASE("io: files that are not regular are refused without blocking") {
    tfm_test::TempDir dir;
    REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0644) == 0);
    CHECK(error_of([&] { open_regular_file(dir.file("fifo")); }).find("fifo: not a regular file") != std::string::npos);
    CHECK(error_of([&] { open_regular_file(dir.path); }).find("not a regular file") != std::string::npos);
    CHECK(error_of([] { open_regular_file("/dev/null"); }).find("not a regular file") != std::string::npos);
    REQUIRE(::symlink("loop", dir.file("loop").c_str()) == 0);
    CHECK(error_of([&] { open_regular_file(dir.file("loop")); }).find("symbolic link loop") != std::string::npos);
    CHECK(error_of([&] { open_regular_file(dir.file("none")); }).find("No such file") != std::string::npos);
}

TEST_CASE("dirs: a staged directory appears whole or not at all; a lock names its holder") {
    tfm_test::TempDir dir;
    const std::string out = dir.file("model");
    {
        StagedDir staged(out, false);
        std::ofstream(staged.path() + "/a") << "1";
        struct stat st {};
        CHECK(::stat(out.c_str(), &st) != 0);  // nothing in place yet
    }  // not committed: removed
    CHECK(std::system(("test -z \"$(ls -A '" + dir.path + "')\"").c_str()) == 0);
    {
        StagedDir staged(out, false);
        std::ofstream(staged.path() + "/a") << "1";
        staged.commit();
    }
    CHECK(std::ifstream(out + "/a").good());
    CHECK(error_of([&] { StagedDir again(out, false); }).find("already exists and is not empty") != std::string::npos);
    {
        StagedDir staged(out, true);
        std::ofstream(staged.path() + "/b") << "2";
        staged.commit();
    }
    CHECK_FALSE(std::ifstream(out + "/a").good());  // replaced as a whole
    CHECK(std::ifstream(out + "/b").good());
    DirLock lock(out);
    // flock locks belong to the open file: a second open in this process conflicts as another
    // process would.
    CHECK(error_of([&] { DirLock second(out); })
              .find("in use by another tfm-train (process " + std::to_string(::getpid()) + ")") != std::string::npos);
}

TEST_CASE("staged directories: a fatal signal removes the staging directory, then kills as it would") {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        CAPTURE(sig);
        tfm_test::TempDir dir;
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {  // a staged directory half written, with a subdirectory, then the signal
            ::signal(sig, SIG_DFL);
            StagedDir staged(dir.file("model"), false);
            std::ofstream(staged.path() + "/a") << "1";
            ::mkdir((staged.path() + "/sub").c_str(), 0755);
            std::ofstream(staged.path() + "/sub/b") << std::string(100000, 'x');
            ::raise(sig);
            ::_exit(0);  // not reached: the signal kills
        }
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == sig);
        CHECK(std::system(("test -z \"$(ls -A '" + dir.path + "')\"").c_str()) == 0);  // nothing left
    }
    // A tree deeper than the handler removes (or an entry it cannot remove) is passed over: the
    // process still dies of the signal, it does not loop rereading the directory.
    {
        tfm_test::TempDir dir;
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::signal(SIGTERM, SIG_DFL);
            StagedDir staged(dir.file("model"), false);
            std::string deep = staged.path();
            for (int i = 0; i < 8; ++i) ::mkdir((deep += "/d").c_str(), 0755);
            std::ofstream(deep + "/f") << "x";
            std::ofstream(staged.path() + "/a") << "1";
            ::alarm(20);  // a handler that looped would die of SIGALRM instead
            ::raise(SIGTERM);
            ::_exit(0);
        }
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGTERM);
    }
    // An ignored signal stays ignored (nohup): the staged directory is made and committed.
    tfm_test::TempDir dir;
    ::signal(SIGHUP, SIG_IGN);
    {
        StagedDir staged(dir.file("model"), false);
        ::raise(SIGHUP);
        staged.commit();
    }
    ::signal(SIGHUP, SIG_DFL);
    struct stat st {};
    CHECK(::stat(dir.file("model").c_str(), &st) == 0);
    // Errors of what fill() writes name the final directory, not the staging one.
    StagedDir staged(dir.file("other"), false);
    const std::string e = error_of([&] { staged.fill([](const std::string& d) { throw Error(d + "/x: No space left on device"); }); });
    CHECK(e == dir.file("other") + "/x: No space left on device");
    CHECK(error_of([&] { staged.fill([](const std::string& d) { throw UsageError(d + ": bad"); }); }) == dir.file("other") + ": bad");
}

TEST_CASE("text: integers are exact int64 or refused; '+-1' is not a number") {
    auto read = [](const std::string& text) {
        Input in = Input::from_string(text);
        TensorReader r(in);
        return r.next();
    };
    auto ids = std::get<IdArray>(*read("9223372036854775807 -9223372036854775808 9007199254740993 +5\n"));
    CHECK(ids(0, 0) == INT64_MAX);
    CHECK(ids(0, 1) == INT64_MIN);
    CHECK(ids(0, 2) == 9007199254740993LL);
    CHECK(ids(0, 3) == 5);
    CHECK(error_of([&] { read("9223372036854775808\n"); }).find("out of int64 range") != std::string::npos);
    CHECK(error_of([&] { read("+-1\n"); }).find("non-numeric value '+-1'") != std::string::npos);
    CHECK(error_of([&] { read("++1\n"); }).find("non-numeric value '++1'") != std::string::npos);
    auto floats = std::get<FloatArray>(*read("1 2.5\n3 4\n"));
    CHECK(floats(0, 0) == 1.0f);
    CHECK(floats(1, 1) == 4.0f);
}

TEST_CASE("text: the record limit applies while a text record is read") {
    std::string text;
    for (int i = 0; i < 1000; ++i) text += "1 2 3 4\n";
    Input in = Input::from_string(text);
    std::size_t line = 0;
    CHECK(error_of([&] { read_text_tensor(in, line, 800); }).find("more than 100 values") != std::string::npos);
}

TEST_CASE("ranges: duplicates and values out of bounds are usage errors") {
    CHECK(error_of([] { parse_range("0,0", 0, 5); }).find("0 appears twice") != std::string::npos);
    CHECK(error_of([] { parse_range("1,9", 0, 5); }).find("9 is outside 0..5") != std::string::npos);
    CHECK(error_of([] { parse_range("1:99999999999999:x2"); }).find("the end is more than") != std::string::npos);
    CHECK(parse_range("0,3", 0, 5) == std::vector<std::size_t>{0, 3});
}
