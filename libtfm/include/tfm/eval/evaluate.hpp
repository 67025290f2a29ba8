// One scoring run as sacreBLEU's command line makes it: the metrics and their settings, the
// systems, and the report it prints (aligned lines, JSON, per-segment lines, or the table of
// several systems with their paired tests).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tfm/eval/bleu.hpp"
#include "tfm/eval/chrf.hpp"
#include "tfm/eval/metric.hpp"
#include "tfm/eval/ter.hpp"

namespace tfm {

struct EvalRequest {
    std::vector<std::string> metrics{"bleu"};  // "bleu", "chrf", "ter": reported in that order
    BleuOptions bleu;
    ChrfOptions chrf;
    TerOptions ter;
    bool sentence_level = false;   // one line per segment (one metric, one system)
    std::size_t confidence_n = 0;  // > 0: the bootstrap interval of one system
    char paired = 0;               // 'b' paired bootstrap, 'a' approximate randomization
    std::size_t paired_n = 0;      // resamples or trials
    std::uint64_t seed = 12345;    // numpy's default_rng seed, sacreBLEU's default
    int width = 2;                 // decimals
    bool score_only = false, short_names = false, json = false;
};

// The metrics a request names, in sacreBLEU's order. Unknown names are an error.
std::vector<std::unique_ptr<Metric>> make_metrics(const EvalRequest& request);

// Scores the systems of the test set (names for the table, "Baseline: " added to the first in
// a paired test) and writes the report to out. Combinations sacreBLEU refuses (a paired test
// of one system, --sentence-level with several metrics ...) are UsageErrors.
void evaluate(const TestSet& set, const std::vector<std::string>& system_names, const EvalRequest& request,
              std::FILE* out);

}  // namespace tfm
