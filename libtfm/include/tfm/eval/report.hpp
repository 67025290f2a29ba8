// Scores as sacreBLEU prints them: "BLEU|nrefs:1|...|version:2.6.0 = 34.21 65.2/... (BP = ...)"
// lines aligned on '=', its JSON objects (the fields it writes, numbers as Python writes
// them), and the table of several systems with their paired tests.
#pragma once

#include <string>
#include <vector>

#include "tfm/eval/metric.hpp"
#include "tfm/eval/significance.hpp"

namespace tfm {

// Python's repr() of a float: the shortest digits that read back, "0.0", "1e-05", "1e+16".
std::string python_float(double x);
// A JSON string literal (UTF-8 kept as it is, as json.dumps(ensure_ascii=False) writes it).
std::string json_quote(const std::string& s);

struct ScoreLine {
    Score score;
    std::string signature;
    const Interval* interval = nullptr;  // --confidence
};

// One line: the name and signature, the score to `width` decimals, the interval, the details.
std::string format_text(const ScoreLine& line, int width, bool score_only);
// sacreBLEU's JSON object for one score (indent 1).
std::string format_json(const ScoreLine& line, int width);
// Lines aligned so that their '=' line up (several metrics of one system).
std::string align_on_equals(const std::vector<std::string>& lines);

struct SystemRow {
    std::string name;
    std::vector<PairedResult> results;  // one per metric
};

// Several systems: a table (text) or sacreBLEU's JSON list. test: "" (scores only), "bs", "ar".
std::string format_systems(const std::vector<std::string>& metric_names, const std::vector<std::string>& signatures,
                           const std::vector<SystemRow>& rows, const std::string& test, std::size_t samples, int width,
                           bool json);

}  // namespace tfm
