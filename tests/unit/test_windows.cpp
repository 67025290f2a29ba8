// The line tools' input windows (io/window.hpp and its readers): a quiet pipe ends a window
// at once, files and busy pipes fill it, and a bad line's error comes after the lines before.
#include <unistd.h>

#include <fstream>

#include "helpers.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/decode/memory_reader.hpp"
#include "tfm/decode/pair_reader.hpp"
#include "tfm/decode/source_reader.hpp"
#include "tfm/io/window.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::error_of;

namespace {

// A pipe whose writing end the test holds: what a coprocess's stdin looks like.
struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { REQUIRE(::pipe(fds) == 0); }
    ~Pipe() {
        for (int fd : fds)
            if (fd >= 0) ::close(fd);
    }
    void write(const std::string& s) { REQUIRE(::write(fds[1], s.data(), s.size()) == ssize_t(s.size())); }
    void close_writer() {
        ::close(fds[1]);
        fds[1] = -1;
    }
};

}  // namespace

TEST_CASE("input: line_ready() says whether a whole line can be had without waiting") {
    Pipe p;
    Input in(p.fds[0]);
    CHECK_FALSE(in.ready());
    CHECK_FALSE(in.line_ready());  // nothing written yet
    p.write("one\ntw");
    CHECK(in.ready());
    CHECK(in.line_ready());
    std::string line;
    REQUIRE(in.getline(line));
    CHECK(line == "one");
    CHECK(in.ready());             // "tw" is buffered ...
    CHECK_FALSE(in.line_ready());  // ... but its line is not finished
    p.write("o\n");
    CHECK(in.line_ready());
    REQUIRE(in.getline(line));
    CHECK(line == "two");
    CHECK_FALSE(in.line_ready());
    p.write("last, with no newline");
    CHECK_FALSE(in.line_ready());
    p.close_writer();
    CHECK(in.line_ready());  // the end of input ends the line
    REQUIRE(in.getline(line));
    CHECK(line == "last, with no newline");
    CHECK(in.line_ready());
    CHECK_FALSE(in.getline(line));
    // Memory and files are always ready.
    Input mem = Input::from_string("a");
    CHECK(mem.line_ready());
}

TEST_CASE("input: a line longer than line_ready() looks is left to getline") {
    Pipe p;
    Input in(p.fds[0]);
    const std::string chunk(60000, 'x');
    int chunks = 0;
    for (; chunks < 30 && !in.line_ready(); ++chunks) p.write(chunk);  // line_ready() drains the pipe
    CHECK(chunks == 18);  // past 1 MiB it stops looking: 18 x 60000 bytes
    p.write("\n");
    p.close_writer();
    std::string line;
    REQUIRE(in.getline(line));
    CHECK(line.size() == 18 * chunk.size());
}

TEST_CASE("window: fills from ready input, stops at a quiet one, then waits for the first item") {
    std::vector<int> items = {1, 2, 3, 4, 5};
    std::size_t at = 0, ready_until = 2;
    WindowReader<int> w;
    auto read = [&](std::vector<int>& out) {
        if (at == items.size()) return false;
        out.push_back(items[at++]);
        return true;
    };
    auto ready = [&] { return at < ready_until; };
    CHECK(w.next(10, read, ready) == std::vector<int>{1, 2});  // item 3 is not in yet
    CHECK(w.next(10, read, ready) == std::vector<int>{3});     // the first item is waited for
    ready_until = 10;
    CHECK(w.next(1, read, ready) == std::vector<int>{4});      // the size holds
    CHECK_FALSE(w.done());
    CHECK(w.next(10, read, ready) == std::vector<int>{5});  // ready input: the end is read too
    CHECK(w.done());
    CHECK(w.next(10, read, ready).empty());
}

TEST_CASE("window: an error after some items is thrown by the next call") {
    std::size_t at = 0;
    WindowReader<int> w;
    auto read = [&](std::vector<int>& out) {
        if (++at == 3) throw Error("line 3: bad");
        out.push_back(int(at));
        return true;
    };
    auto ready = [] { return true; };
    CHECK(w.next(10, read, ready) == std::vector<int>{1, 2});
    CHECK(error_of([&] { w.next(10, read, ready); }) == "line 3: bad");
    WindowReader<int> first;
    at = 2;
    CHECK(error_of([&] { first.next(10, read, ready); }) == "line 3: bad");  // nothing before it: at once
}

TEST_CASE("source reader: one translation's worth from a quiet pipe, the bad line after the good") {
    const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    Pipe p;
    Input in(p.fds[0]);
    std::vector<std::string> warnings;
    SourceReader text(in, md.tokenizer, md.model.config, false, false, [&](const std::string& w) { warnings.push_back(w); });
    p.write("Ein Hund läuft.\n");
    auto w1 = text.next_window(64);  // returns with one line while the writer stays open
    REQUIRE(w1.size() == 1);
    CHECK(w1[0] == md.tokenizer.encode("Ein Hund läuft."));
    p.write("Zwei Katzen.\nEin Mann.\n");
    CHECK(text.next_window(64).size() == 2);
    CHECK(text.lines_read == 3);
    p.close_writer();
    CHECK(text.next_window(64).empty());
    CHECK(warnings.empty());

    const std::size_t v = md.model.config.source_vocab();
    Input ids_in = Input::from_string("5 6\n\n7 " + std::to_string(v) + "\n8\n");
    SourceReader ids(ids_in, md.tokenizer, md.model.config, true, false, [](const std::string&) {});
    const auto good = ids.next_window(64);
    REQUIRE(good.size() == 2);
    CHECK(good[0] == std::vector<std::int64_t>{5, 6, md.model.config.eos_id});
    CHECK(good[1].empty());  // an empty line: an empty translation
    CHECK(error_of([&] { ids.next_window(64); }) ==
          "line 3: id " + std::to_string(v) + " is outside the vocabulary of " + std::to_string(v));
}

TEST_CASE("pair reader: files or tabs, text or ids, errors naming the line") {
    const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    const ModelConfig& c = md.model.config;
    tfm_test::TempDir dir;
    std::ofstream(dir.file("pairs.tsv")) << "Ein Hund.\tA dog.\n\t\nkein Tab\n";
    PairReader tsv(dir.file("pairs.tsv"), "", md.tokenizer, c, false, "");
    const auto two = tsv.next_window(10);
    REQUIRE(two.size() == 2);
    CHECK(two[0].source == md.tokenizer.encode("Ein Hund."));
    CHECK(two[0].target == md.tokenizer.encode_target("A dog."));
    CHECK(two[1].source == std::vector<std::int64_t>{c.eos_id});  // empty texts: eos alone
    CHECK(two[1].target == std::vector<std::int64_t>{c.eos_id});
    CHECK(error_of([&] { tsv.next_window(10); }) == "line 3: no tab between source and target");

    std::ofstream(dir.file("src.ids")) << "4 5\n\n6\n";
    std::ofstream(dir.file("tgt.ids")) << "7 " + std::to_string(c.eos_id) + "\n8\n";
    PairReader ids(dir.file("src.ids"), dir.file("tgt.ids"), md.tokenizer, c, true, "");
    const auto pairs = ids.next_window(10);
    REQUIRE(pairs.size() == 2);
    CHECK(pairs[0].source == std::vector<std::int64_t>{4, 5, c.eos_id});
    CHECK(pairs[0].target == std::vector<std::int64_t>{7, c.eos_id});  // eos not doubled
    CHECK(pairs[1].source == std::vector<std::int64_t>{c.eos_id});
    CHECK(error_of([&] { ids.next_window(10); }) == dir.file("tgt.ids") + " ends after line 2 but " + dir.file("src.ids") + " goes on");

    std::ofstream(dir.file("long.tsv")) << std::string(text_budget(c.max_positions) + 1, 'a') + "\tb\n";
    PairReader long_line(dir.file("long.tsv"), "", md.tokenizer, c, false, "");
    CHECK(error_of([&] { long_line.next_window(10); }).rfind("line 1: source of ", 0) == 0);
}

TEST_CASE("target language: the prefix a multi-target model needs, checked") {
    const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    CHECK(md.tokenizer.target_lang_prefix("").empty());
    CHECK(error_of([&] { md.tokenizer.target_lang_prefix("fra"); }) == "--target-lang fra: this model has no target-language codes");
    CHECK(with_target_lang(">>fra<< ", "Bonjour") == ">>fra<< Bonjour");
    CHECK(with_target_lang(">>fra<< ", ">>por<< Olá") == ">>por<< Olá");  // its own code wins
    CHECK(with_target_lang("", "Hallo") == "Hallo");
}

TEST_CASE("memory reader: [S,D] records for the model's D, a bad one after the good") {
    const std::string bytes = tfm_test::write_records(Format::Npy, [](TensorWriter& w) {
        const std::vector<float> a(8, 0.5f), b(15, 1.0f);
        w.write(a.data(), Shape{2, 4});
        w.write(a.data(), Shape{0, 4});  // an empty line's memory
        w.write(b.data(), Shape{3, 5});
    });
    Input in = Input::from_string(bytes);
    MemoryReader r(in, 4);
    const auto good = r.next_window(10);
    REQUIRE(good.size() == 2);
    CHECK(good[0].shape(0) == 2);
    CHECK(good[0](1, 3) == 0.5f);
    CHECK(good[1].shape(0) == 0);
    CHECK(r.records_read() == 3);
    const std::string e = error_of([&] { r.next_window(10); });
    CHECK(e.find("[3,5] does not fit the model: expected [S,4]") != std::string::npos);
}
