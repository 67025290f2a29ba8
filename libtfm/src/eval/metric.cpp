#include "tfm/eval/metric.hpp"

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/io/line_reader.hpp"

namespace tfm {

namespace {

// str.rstrip() on UTF-8: trailing characters that str.isspace() holds removed.
void rstrip_utf8(std::string& s) {
    const std::u32string cps = decode_utf8(s);
    const std::size_t kept = py_rstrip(cps).size();
    std::size_t bytes = 0;  // whitespace is valid UTF-8: its code points give its bytes
    for (std::size_t i = kept; i < cps.size(); ++i) bytes += cps[i] < 0x80 ? 1 : cps[i] < 0x800 ? 2 : 3;
    s.resize(s.size() - bytes);
}

std::vector<std::string> read_lines(const std::string& path) {
    LineReader in(path);
    std::vector<std::string> lines;
    std::string line;
    while (in.next(line)) {
        rstrip_utf8(line);
        lines.push_back(line);
    }
    return lines;
}

}  // namespace

TestSet read_test_set(const std::vector<std::string>& reference_paths, const std::vector<std::string>& system_paths,
                   std::size_t num_refs) {
    if (reference_paths.empty()) throw Error("no reference file");
    if (num_refs == 0) throw Error("--num-refs must be at least 1");
    if (num_refs > 1 && reference_paths.size() > 1)
        throw Error("tab-separated references (--num-refs) come in one file, not " + std::to_string(reference_paths.size()));
    TestSet c;
    std::size_t n = 0;
    const auto check = [&](const std::vector<std::string>& lines, const std::string& path, const char* what) {
        if (lines.size() != n)
            throw Error(std::string(what) + " " + path + " has " + std::to_string(lines.size()) + " lines, the references " +
                        std::to_string(n));
    };
    if (num_refs > 1) {
        const std::vector<std::string> lines = read_lines(reference_paths.front());
        n = lines.size();
        c.references.assign(num_refs, std::vector<std::string>(n));
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t at = 0;
            for (std::size_t r = 0; r < num_refs; ++r) {
                const std::size_t tab = r + 1 < num_refs ? lines[i].find('\t', at) : std::string::npos;
                if (r + 1 < num_refs && tab == std::string::npos)
                    throw Error(reference_paths.front() + ":" + std::to_string(i + 1) + ": expected " + std::to_string(num_refs) +
                                " tab-separated references, found " + std::to_string(r + 1));
                c.references[r][i] = lines[i].substr(at, tab == std::string::npos ? std::string::npos : tab - at);
                at = tab + 1;
            }
        }
    } else {
        for (const std::string& path : reference_paths) {
            c.references.push_back(read_lines(path));
            if (c.references.size() == 1) n = c.references.front().size();
            else check(c.references.back(), path, "reference file");
        }
    }
    for (const std::string& path : system_paths) {
        c.systems.push_back(read_lines(path));
        check(c.systems.back(), path == "-" ? "stdin" : path, "hypotheses");
    }
    return c;
}

std::vector<double> segment_stats(const Metric& metric, const TestSet& corpus, std::size_t system) {
    const std::size_t n = corpus.size(), w = metric.width();
    if (system >= corpus.systems.size() || corpus.systems[system].size() != n)
        throw Error("a system's hypotheses and the references differ in length");
    if (corpus.references.empty()) throw Error("no references");
    std::vector<double> stats(n * w, 0.0);
    const auto& hyps = corpus.systems[system];
    parallel_blocks(n, 256, [&](std::size_t first, std::size_t last) {
        std::vector<std::string_view> refs(corpus.references.size());
        for (std::size_t i = first; i < last; ++i) {
            for (std::size_t r = 0; r < refs.size(); ++r) refs[r] = corpus.references[r][i];
            metric.segment(hyps[i], refs, &stats[i * w]);
        }
    });
    return stats;
}

std::vector<double> sum_stats(const std::vector<double>& stats, std::size_t width) {
    std::vector<double> sum(width, 0.0);
    for (std::size_t i = 0; i + width <= stats.size(); i += width)
        for (std::size_t k = 0; k < width; ++k) sum[k] += stats[i + k];
    return sum;
}

std::string signature(const SignatureFields& settings, std::size_t nrefs, bool short_names, const SignatureFields& extra) {
    std::string out = std::string(short_names ? "#" : "nrefs") + ":" + std::to_string(nrefs);
    const auto add = [&](const SignatureField& f) { out += "|" + (short_names ? f.abbr : f.name) + ":" + f.value; };
    for (const SignatureField& f : extra) add(f);
    for (const SignatureField& f : settings) add(f);
    add({"version", "v", kSacrebleuVersion});
    return out;
}

}  // namespace tfm
