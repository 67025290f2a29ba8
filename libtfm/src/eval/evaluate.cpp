#include "tfm/eval/evaluate.hpp"

#include <algorithm>

#include "tfm/base/error.hpp"
#include "tfm/eval/report.hpp"
#include "tfm/eval/significance.hpp"

namespace tfm {

namespace {

void check(const TestSet& set, const EvalRequest& r, std::size_t metrics) {
    const std::size_t systems = set.systems.size();
    if (systems == 0) throw UsageError("no hypotheses");
    if (r.paired != 0 && r.paired != 'a' && r.paired != 'b') throw UsageError("unknown paired test");
    if (r.sentence_level && metrics > 1) throw UsageError("--sentence-level scores one metric at a time");
    if (r.sentence_level && systems > 1) throw UsageError("--sentence-level scores one system at a time");
    if (r.sentence_level && (r.confidence_n || r.paired))
        throw UsageError("--sentence-level has no confidence intervals or paired tests");
    if (r.paired && systems < 2) throw UsageError("paired tests need two systems or more (-i base.txt new.txt)");
    if (r.confidence_n && systems > 1) throw UsageError("--confidence scores one system; use --paired-bs for several");
    if (set.size() == 0) throw Error("the references are empty");
}

void put(std::FILE* out, const std::string& s) {
    if (std::fputs(s.c_str(), out) < 0) throw Error("write error");
}

std::string seed_text(const EvalRequest& r) { return std::to_string(r.seed); }

}  // namespace

std::vector<std::unique_ptr<Metric>> make_metrics(const EvalRequest& r) {
    for (const std::string& m : r.metrics)
        if (m != "bleu" && m != "chrf" && m != "ter") throw UsageError("unknown metric '" + m + "' (bleu, chrf, ter)");
    const auto wanted = [&](const char* m) { return std::find(r.metrics.begin(), r.metrics.end(), m) != r.metrics.end(); };
    std::vector<std::unique_ptr<Metric>> metrics;
    if (wanted("bleu")) metrics.push_back(std::make_unique<Bleu>(r.bleu));
    if (wanted("chrf")) metrics.push_back(std::make_unique<Chrf>(r.chrf));
    if (wanted("ter")) metrics.push_back(std::make_unique<Ter>(r.ter));
    return metrics;
}

void evaluate(const TestSet& set, const std::vector<std::string>& system_names, const EvalRequest& r, std::FILE* out) {
    const std::vector<std::unique_ptr<Metric>> metrics = make_metrics(r);
    check(set, r, metrics.size());
    const std::size_t nrefs = set.references.size();

    if (r.sentence_level) {
        const Metric& m = *metrics.front();
        const std::vector<double> stats = segment_stats(m, set, 0);
        const std::string sig = signature(m.sentence_settings(), nrefs, r.short_names);
        for (std::size_t i = 0; i < set.size(); ++i) {
            const ScoreLine line{m.sentence(&stats[i * m.width()]), sig};
            std::string text = r.json ? format_json(line, r.width) : format_text(line, r.width, r.score_only);
            if (r.json) text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());  // JSON Lines
            put(out, text + "\n");
        }
        return;
    }
    if (set.systems.size() == 1) {
        std::vector<std::string> lines;
        std::vector<Interval> intervals(metrics.size());
        for (std::size_t k = 0; k < metrics.size(); ++k) {
            const Metric& m = *metrics[k];
            const std::vector<double> stats = segment_stats(m, set, 0);
            ScoreLine line{m.score(sum_stats(stats, m.width()).data()), ""};
            SignatureFields extra;
            if (r.confidence_n) {
                intervals[k] = estimate_ci(bootstrap_scores(m, {&stats}, r.confidence_n, r.seed).front());
                line.interval = &intervals[k];
                extra = {{"bs", "bs", std::to_string(r.confidence_n)}, {"seed", "rs", seed_text(r)}};
            }
            line.signature = signature(m.settings(), nrefs, r.short_names && !r.json, extra);
            lines.push_back(r.json ? format_json(line, r.width) : format_text(line, r.width, r.score_only));
        }
        if (r.json) {
            std::string text = lines.size() == 1 ? lines.front() : "[\n" + lines.front();
            for (std::size_t k = 1; k < lines.size(); ++k) text += ",\n" + lines[k];
            put(out, text + (lines.size() > 1 ? "\n]\n" : "\n"));
        } else if (r.score_only) {
            for (const std::string& l : lines) put(out, l + "\n");
        } else {
            put(out, align_on_equals(lines));
        }
        return;
    }
    // Several systems: a table, each against the first with a paired test.
    std::vector<SystemRow> rows(set.systems.size());
    for (std::size_t s = 0; s < rows.size(); ++s)
        rows[s].name = (r.paired && s == 0 ? "Baseline: " : "") + (s < system_names.size() ? system_names[s] : "System " + std::to_string(s + 1));
    std::vector<std::string> names, sigs;
    for (const auto& m : metrics) {
        std::vector<std::vector<double>> stats;
        for (std::size_t s = 0; s < rows.size(); ++s) stats.push_back(segment_stats(*m, set, s));
        std::vector<PairedResult> results;
        SignatureFields extra;
        if (r.paired == 'b') {
            results = paired_bootstrap(*m, stats, r.paired_n, r.seed);
            extra = {{"bs", "bs", std::to_string(r.paired_n)}, {"seed", "rs", seed_text(r)}};
        } else if (r.paired == 'a') {
            results = paired_randomization(*m, stats, r.paired_n, r.seed);
            extra = {{"ar", "ar", std::to_string(r.paired_n)}, {"seed", "rs", seed_text(r)}};
        } else {
            for (const auto& st : stats) {
                PairedResult p;
                p.score = m->score(sum_stats(st, m->width()).data()).score;
                results.push_back(p);
            }
        }
        for (std::size_t s = 0; s < rows.size(); ++s) rows[s].results.push_back(results[s]);
        names.push_back(m->name());
        sigs.push_back(signature(m->settings(), nrefs, r.short_names, extra));
    }
    const std::string test = r.paired == 'b' ? "bs" : r.paired == 'a' ? "ar" : "";
    put(out, format_systems(names, sigs, rows, test, r.paired_n, r.width, r.json));
}

}  // namespace tfm
