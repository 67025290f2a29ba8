// tfm-similar: cosine similarity of sentence vectors (tfm-encode --pool): record by record of
// two streams, or the k nearest records of a corpus to each query (brute force over sgemm), so
// that `tfm-encode --pool mean < corpus | ...` makes a semantic search from the shell.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/nearest.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/io/stream.hpp"

namespace {

// A stream of sentence vectors from a file or stdin ("-").
class Vectors {
public:
    explicit Vectors(const std::string& path) : name_(path == "-" ? "stdin" : path) {
        int fd = STDIN_FILENO;
        if (path != "-") {
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) throw tfm::Error(path + ": " + std::strerror(errno));
            owned_ = fd;
            struct stat st {};
            if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
                ::close(fd);
                throw tfm::Error(path + ": a directory, not a stream of vectors");
            }
        }
        in_ = std::make_unique<tfm::Input>(fd, name_);
        reader_ = std::make_unique<tfm::TensorReader>(*in_);
    }
    ~Vectors() {
        if (owned_ >= 0) ::close(owned_);
    }
    // The next vector [D] ([0]: an empty line's), checked; nullopt at the end.
    std::optional<tfm::FloatArray> next() {
        std::optional<tfm::Record> rec;
        try {
            rec = reader_->next();
        } catch (const tfm::BrokenPipe&) {
            throw;
        } catch (const tfm::Error& e) {
            throw tfm::Error(name_ + ": " + e.what());
        }
        if (!rec) return std::nullopt;
        const std::size_t index = reader_->records_read() - 1;
        tfm::FloatArray a = tfm::as_float(std::move(*rec));
        auto fail = [&](const std::string& what) { return tfm::Error(name_ + ": " + tfm::record_error(index, what).what()); };
        if (a.dimension() != 1)
            throw fail(tfm::shape_of(a) + " is not a vector [D]: sentence vectors come from tfm-encode --pool");
        for (float v : a)
            if (!std::isfinite(v)) throw fail("holds NaN or Inf");
        if (a.size() && dim_ && a.size() != dim_)
            throw fail("a vector of " + std::to_string(a.size()) + " values after ones of " + std::to_string(dim_));
        if (a.size()) dim_ = a.size();
        return a;
    }
    std::size_t read() const { return reader_->records_read(); }
    bool ready() { return in_->ready(); }  // the next record can be read without waiting
    const std::string& name() const { return name_; }
    std::size_t dim() const { return dim_; }

private:
    std::string name_;
    int owned_ = -1;
    std::unique_ptr<tfm::Input> in_;
    std::unique_ptr<tfm::TensorReader> reader_;
    std::size_t dim_ = 0;
};

std::string score(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-similar",
        "Cosine similarity of sentence vectors: record by record of two streams, or the k nearest records of a "
        "corpus to each query.",
        "  tfm-similar a.npy b.npy                      # one cosine per record pair\n"
        "  tfm-encode -m bert --pool mean < corpus.txt > corpus.npy\n"
        "  echo 'a dog in the snow' | tfm-encode -m bert --pool mean | tfm-similar --corpus corpus.npy -k 3\n"
        "  ... | tfm-similar --corpus corpus.npy -k 3 --corpus-text corpus.txt   # query, rank, score, line\n");
    CLI::App& app = tool.app();
    std::vector<std::string> files;
    std::string corpus, text;
    std::size_t k = 10;
    app.add_option("files", files, "A B: cosine of each record of A with the same record of B; with --corpus: "
                                   "the queries (default: stdin)");
    app.add_option("--corpus", corpus, "Vectors to search: each query gets its k nearest, as 1-based record numbers");
    app.add_option("-k", k, "How many nearest records per query (default 10)")->check(tfm::tool::in_range(1, 1e9));
    tool.rename_option("--text", "--corpus-text");
    app.add_option("--corpus-text", text, "The corpus's lines (one per record): print 'query<TAB>rank<TAB>score<TAB>line' "
                                   "lines instead");
    return tool.run(argc, argv, [&] {
        tfm::Output out(STDOUT_FILENO);
        if (corpus.empty()) {  // two streams, record by record
            if (files.size() != 2) throw tfm::UsageError("give two vector files (A B), or --corpus FILE");
            if (!text.empty() || app.count("-k")) throw tfm::UsageError("-k and --corpus-text go with --corpus");
            if (files[0] == "-" && files[1] == "-") throw tfm::UsageError("A and B cannot both be stdin");
            Vectors a(files[0]), b(files[1]);
            for (;;) {
                auto va = a.next(), vb = b.next();
                if (!va || !vb) {
                    if (va || vb)
                        throw tfm::Error((va ? b : a).name() + " ends after record " + std::to_string((va ? b : a).read()) +
                                         " but " + (va ? a : b).name() + " goes on");
                    break;
                }
                if (va->size() && vb->size() && va->size() != vb->size())
                    throw tfm::Error("record " + std::to_string(a.read()) + ": vectors of " + std::to_string(va->size()) +
                                     " and " + std::to_string(vb->size()) + " values");
                out.write(va->size() && vb->size() ? score(tfm::cosine(va->data(), vb->data(), va->size())) + "\n" : "\n");
                if (!a.ready() || !b.ready()) out.flush();  // answer now what a quiet pipe asked
            }
            return;
        }
        if (files.size() > 1) throw tfm::UsageError("with --corpus, give at most one file of queries");
        // The corpus: every vector indexed; empty records keep their number but are never found.
        Vectors c(corpus);
        std::vector<std::size_t> numbers;  // index row -> 1-based record number
        std::optional<tfm::CosineIndex> index;
        while (auto v = c.next()) {
            if (v->size() == 0) continue;
            if (!index) index.emplace(v->size());
            index->add(v->data());
            numbers.push_back(c.read());
        }
        std::vector<std::string> lines;
        if (!text.empty()) {
            tfm::LineReader r(text);
            for (std::string l; r.next(l);) lines.push_back(l);
            if (lines.size() != c.read())
                throw tfm::Error(text + ": " + std::to_string(lines.size()) + " lines for the corpus's " +
                                 std::to_string(c.read()) + " records");
        }
        Vectors q(files.empty() ? "-" : files[0]);
        for (bool more = true; more;) {
            std::vector<float> block;  // up to 1024 queries [M,D]; empty ones answered empty
            std::vector<bool> empty;
            while (empty.size() < 1024 && (empty.empty() || q.ready())) {  // no waiting once a query is in
                auto v = q.next();
                if (!v) {
                    more = false;
                    break;
                }
                if (v->size() && index && v->size() != index->dim())
                    throw tfm::Error(q.name() + ": record " + std::to_string(q.read()) + ": a vector of " +
                                     std::to_string(v->size()) + " values for a corpus of " + std::to_string(index->dim()));
                empty.push_back(v->size() == 0 || !index);
                if (!empty.back()) block.insert(block.end(), v->begin(), v->end());
            }
            const std::size_t first = q.read() - empty.size();
            std::vector<std::vector<tfm::CosineIndex::Hit>> hits;
            if (index && !block.empty()) hits = index->nearest(tfm::mat(block.data(), block.size() / index->dim(), index->dim()), k);
            std::string text_out;
            for (std::size_t i = 0, h = 0; i < empty.size(); ++i) {
                const std::size_t query = first + i + 1;
                if (empty[i]) {
                    if (lines.empty()) text_out += "\n";
                    continue;
                }
                std::string line;
                for (std::size_t r = 0; r < hits[h].size(); ++r) {
                    const auto& hit = hits[h][r];
                    const std::size_t n = numbers[hit.row];
                    if (lines.empty()) line += (r ? " " : "") + std::to_string(n) + ":" + score(hit.score);
                    else text_out += std::to_string(query) + "\t" + std::to_string(r + 1) + "\t" + score(hit.score) + "\t" +
                                     lines[n - 1] + "\n";
                }
                if (lines.empty()) text_out += line + "\n";
                ++h;
            }
            out.write(text_out);
            out.flush();
        }
    });
}
