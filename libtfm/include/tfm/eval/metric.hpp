// A corpus metric as sacreBLEU structures one: each segment (a hypothesis and its references)
// gives a fixed-width vector of sufficient statistics, the corpus score is computed from their
// sum, and a signature names every setting the number depends on. Bootstrap resampling and
// paired tests (significance.hpp) reuse the per-segment statistics.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfm {

// The sacreBLEU release whose numbers tfm's metrics reproduce, as signatures name it (the
// fixtures in tests/golden/sacrebleu were written by that release).
inline constexpr const char* kSacrebleuVersion = "2.6.0";

struct Score {
    std::string name;     // "BLEU", "chrF2", "chrF2++", "TER"
    double score = 0;
    std::string verbose;  // BLEU's precisions and brevity penalty; empty for the others
};

// One setting in a signature: its name, sacreBLEU's short name for it, its value.
struct SignatureField {
    std::string name, abbr, value;
};
// A metric's settings, in sacreBLEU's signature order.
using SignatureFields = std::vector<SignatureField>;

class Metric {
public:
    virtual ~Metric() = default;
    virtual std::string name() const = 0;
    // Statistics per segment.
    virtual std::size_t width() const = 0;
    // stats[0, width()) for one hypothesis against its references (one or more; thread-safe).
    virtual void segment(std::string_view hypothesis, const std::vector<std::string_view>& references,
                         double* stats) const = 0;
    // The score of summed (or single-segment) statistics.
    virtual Score score(const double* stats) const = 0;
    // The metric's own settings ("case", "tok", ...), without nrefs and version.
    virtual SignatureFields settings() const = 0;
    // The score of one segment when scored alone (sentence-level); BLEU turns on its
    // effective order here, as sacreBLEU's --sentence-level does.
    virtual Score sentence(const double* stats) const { return score(stats); }
    virtual SignatureFields sentence_settings() const { return settings(); }
};

// The texts of a test set: one hypothesis stream per system, one stream per reference.
struct TestSet {
    std::vector<std::vector<std::string>> systems;     // [system][segment]
    std::vector<std::vector<std::string>> references;  // [reference][segment]
    std::size_t size() const { return references.empty() ? 0 : references.front().size(); }
};

// Reads a test set as sacreBLEU's command line does: each line with its trailing whitespace
// (str.rstrip()) removed; with num_refs > 1 the one reference file holds that many
// tab-separated references per line. Every stream must have as many lines as the first
// reference; an error names the file that differs. Paths may be "-" (stdin, once) or gzip.
TestSet read_test_set(const std::vector<std::string>& reference_paths, const std::vector<std::string>& system_paths,
                   std::size_t num_refs = 1);

// Per-segment statistics of one system, [segment * width + k], over the thread pool.
std::vector<double> segment_stats(const Metric& metric, const TestSet& corpus, std::size_t system);
// Their sum in segment order (as sacreBLEU's sum_of_lists adds them).
std::vector<double> sum_stats(const std::vector<double>& stats, std::size_t width);

// The signature: "nrefs:1|case:mixed|...|version:2.6.0", or with sacreBLEU's short names
// ("#:1|c:mixed|...|v:2.6.0"). `extra` (bs, ar, seed of a resampling test) goes after nrefs.
std::string signature(const SignatureFields& settings, std::size_t nrefs, bool short_names = false,
                      const SignatureFields& extra = {});

}  // namespace tfm
