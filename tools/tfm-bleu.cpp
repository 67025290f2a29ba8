// tfm-bleu: BLEU, chrF, chrF++ and TER of hypotheses against one or more references, as
// sacreBLEU computes and prints them, with its confidence intervals and paired tests.
#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/eval/bleu.hpp"
#include "tfm/eval/chrf.hpp"
#include "tfm/eval/report.hpp"
#include "tfm/eval/significance.hpp"
#include "tfm/eval/ter.hpp"
#include "tfm/base/error.hpp"

#include <cstdio>
#include <memory>

int main(int argc, char** argv) {
    using namespace tfm;
    tool::Tool tool("tfm-bleu", "BLEU, chrF and TER of hypotheses against references, as sacreBLEU computes them.",
        "  tfm-translate -m model < test.de | tfm-bleu test.en\n"
        "  tfm-bleu ref1.en ref2.en -i hyp.txt -m bleu,chrf,ter\n"
        "  tfm-bleu test.en -i base.txt new.txt --paired-bs\n");
    std::vector<std::string> refs, inputs;
    std::vector<std::string> metric_names{"bleu"};
    std::string tokenize = "13a", smooth = "exp", format = "text";
    double smooth_value = -1;
    std::size_t num_refs = 1, confidence_n = 1000, paired_bs_n = 1000, paired_ar_n = 10000;
    std::uint64_t seed = 12345;
    int width = 2;
    bool score_only = false, lowercase = false, sentence_level = false, confidence = false, paired_bs = false,
         paired_ar = false, short_sig = false;
    ChrfOptions chrf;
    TerOptions ter;
    auto& app = tool.app();
    app.add_option("references", refs, "Reference files, line-aligned with the hypotheses (gzip ok)")->required()
        ->check(CLI::ExistingFile);
    app.add_option("-i,--input", inputs, "Hypothesis files, one per system (default: stdin)");
    app.add_option("-m,--metrics", metric_names, "Metrics: bleu, chrf, ter (default bleu)")->delimiter(',')
        ->check(CLI::IsMember({"bleu", "chrf", "ter"}));
    app.add_option("--num-refs", num_refs, "Each line of the one reference file holds this many tab-separated references")
        ->check(tool::in_range(1, 1000));
    app.add_flag("--sentence-level", sentence_level, "A score per segment, one line each (one metric, one system)");
    app.add_option("--tokenize", tokenize, "BLEU's tokenizer: 13a, intl, char, none (default 13a)")
        ->check(CLI::IsMember({"13a", "intl", "char", "none"}));
    app.add_flag("--lowercase", lowercase, "BLEU: case-insensitive");
    app.add_option("--smooth-method", smooth, "BLEU's smoothing: exp, floor, add-k, none (default exp)")
        ->check(CLI::IsMember({"exp", "floor", "add-k", "none"}));
    app.add_option("--smooth-value", smooth_value, "BLEU: the value for floor (default 0.1) and add-k (default 1)")
        ->check(tool::in_range(0, 1e6));
    app.add_option("--chrf-char-order", chrf.char_order, "chrF: character n-gram order (default 6)")->check(tool::in_range(0, 32));
    app.add_option("--chrf-word-order", chrf.word_order, "chrF: word n-gram order (default 0; 2 is chrF++)")->check(tool::in_range(0, 32));
    app.add_option("--chrf-beta", chrf.beta, "chrF: weight of recall against precision (default 2)")->check(tool::in_range(0, 1000));
    app.add_flag("--chrf-whitespace", chrf.whitespace, "chrF: keep whitespace in character n-grams");
    app.add_flag("--chrf-lowercase", chrf.lowercase, "chrF: case-insensitive");
    app.add_flag("--chrf-eps-smoothing", chrf.eps_smoothing, "chrF: epsilon smoothing (chrF++.py, NLTK, Moses)");
    app.add_flag("--ter-case-sensitive", ter.case_sensitive, "TER: case-sensitive");
    app.add_flag("--ter-asian-support", ter.asian_support, "TER: CJK characters and punctuation apart");
    app.add_flag("--ter-no-punct", ter.no_punct, "TER: remove punctuation");
    app.add_flag("--ter-normalized", ter.normalized, "TER: basic normalization and tokenization");
    app.add_flag("--confidence", confidence, "Bootstrap the 95% confidence interval (one system)");
    app.add_option("--confidence-n", confidence_n, "Bootstrap resamples (default 1000)")->check(tool::in_range(1, 1e6));
    app.add_flag("--paired-bs", paired_bs, "Paired bootstrap resampling test of each system against the first");
    app.add_flag("--paired-ar", paired_ar, "Paired approximate randomization test of each system against the first");
    app.add_option("--paired-bs-n", paired_bs_n, "Paired bootstrap resamples (default 1000)")->check(tool::in_range(1, 1e6));
    app.add_option("--paired-ar-n", paired_ar_n, "Approximate randomization trials (default 10000)")->check(tool::in_range(1, 1e7));
    app.add_option("--seed", seed, "Seed of the resampling, numpy's default_rng (default 12345, sacreBLEU's)")
        ->check(tool::in_range(0, tool::kMaxCount));
    app.add_flag("-b,--score-only", score_only, "Print the score alone");
    app.add_option("-w,--width", width, "Decimals of the scores (default 2)")->check(tool::in_range(0, 17));
    app.add_flag("--short", short_sig, "Short signature names");
    app.add_option("-f,--format", format, "Output: text or json (default text)")->check(CLI::IsMember({"text", "json"}));
    return tool.run(argc, argv, [&] {
        if (paired_bs && paired_ar) throw CLI::ValidationError("--paired-bs and --paired-ar exclude each other");
        const bool paired = paired_bs || paired_ar;
        if (inputs.empty()) inputs.push_back("-");
        if (sentence_level && metric_names.size() > 1)
            throw CLI::ValidationError("--sentence-level scores one metric at a time");
        if (sentence_level && inputs.size() > 1) throw CLI::ValidationError("--sentence-level scores one system at a time");
        if (sentence_level && (confidence || paired))
            throw CLI::ValidationError("--sentence-level has no confidence intervals or paired tests");
        if (paired && inputs.size() < 2) throw CLI::ValidationError("paired tests need two systems or more (-i base.txt new.txt)");
        if (confidence && inputs.size() > 1) throw CLI::ValidationError("--confidence scores one system; use --paired-bs for several");

        BleuOptions bleu;
        bleu.tokenizer = parse_bleu_tokenizer(tokenize);
        bleu.lowercase = lowercase;
        bleu.smooth = parse_bleu_smooth(smooth);
        bleu.smooth_value = smooth_value;
        // In sacreBLEU's order: metrics sorted by name (BLEU, CHRF, TER), each once.
        std::vector<std::unique_ptr<Metric>> metrics;
        for (const char* m : {"bleu", "chrf", "ter"}) {
            if (std::find(metric_names.begin(), metric_names.end(), m) == metric_names.end()) continue;
            if (std::string(m) == "bleu") metrics.push_back(std::make_unique<Bleu>(bleu));
            else if (std::string(m) == "chrf") metrics.push_back(std::make_unique<Chrf>(chrf));
            else metrics.push_back(std::make_unique<Ter>(ter));
        }
        const TestSet corpus = read_test_set(refs, inputs, num_refs);
        if (corpus.size() == 0) throw Error("the references are empty");
        const std::size_t nrefs = corpus.references.size();
        const bool json = format == "json";

        if (sentence_level) {
            const Metric& m = *metrics.front();
            const std::vector<double> stats = segment_stats(m, corpus, 0);
            const std::string sig = signature(m.sentence_settings(), nrefs, short_sig);
            for (std::size_t i = 0; i < corpus.size(); ++i) {
                const ScoreLine line{m.sentence(&stats[i * m.width()]), sig};
                std::string out = json ? format_json(line, width) : format_text(line, width, score_only);
                if (json) out.erase(std::remove(out.begin(), out.end(), '\n'), out.end());
                std::printf("%s\n", out.c_str());
            }
            return;
        }
        if (inputs.size() == 1) {
            std::vector<std::string> lines;
            std::vector<Interval> intervals(metrics.size());
            for (std::size_t k = 0; k < metrics.size(); ++k) {
                const Metric& m = *metrics[k];
                const std::vector<double> stats = segment_stats(m, corpus, 0);
                SignatureFields extra;
                ScoreLine line{m.score(sum_stats(stats, m.width()).data()), ""};
                if (confidence) {
                    intervals[k] = estimate_ci(bootstrap_scores(m, {&stats}, confidence_n, seed).front());
                    line.interval = &intervals[k];
                    extra = {{"bs", "bs", std::to_string(confidence_n)}, {"seed", "rs", std::to_string(seed)}};
                }
                line.signature = signature(m.settings(), nrefs, short_sig && !json, extra);
                lines.push_back(json ? format_json(line, width) : format_text(line, width, score_only));
            }
            if (json) {
                std::string out = lines.size() == 1 ? lines.front() : "[\n" + lines.front();
                for (std::size_t k = 1; k < lines.size(); ++k) out += ",\n" + lines[k];
                if (lines.size() > 1) out += "\n]";
                std::printf("%s\n", out.c_str());
            } else if (score_only) {
                for (const std::string& l : lines) std::printf("%s\n", l.c_str());
            } else {
                std::fputs(align_on_equals(lines).c_str(), stdout);
            }
            return;
        }
        // Several systems: a table, each against the first with a paired test.
        std::vector<SystemRow> rows(inputs.size());
        for (std::size_t s = 0; s < inputs.size(); ++s)
            rows[s].name = (paired && s == 0 ? "Baseline: " : "") + (inputs[s] == "-" ? std::string("stdin") : inputs[s]);
        std::vector<std::string> names, sigs;
        for (const auto& m : metrics) {
            std::vector<std::vector<double>> stats;
            for (std::size_t s = 0; s < inputs.size(); ++s) stats.push_back(segment_stats(*m, corpus, s));
            std::vector<PairedResult> results;
            SignatureFields extra;
            if (paired_bs) {
                results = paired_bootstrap(*m, stats, paired_bs_n, seed);
                extra = {{"bs", "bs", std::to_string(paired_bs_n)}, {"seed", "rs", std::to_string(seed)}};
            } else if (paired_ar) {
                results = paired_randomization(*m, stats, paired_ar_n, seed);
                extra = {{"ar", "ar", std::to_string(paired_ar_n)}, {"seed", "rs", std::to_string(seed)}};
            } else {
                for (const auto& st : stats) {
                    PairedResult r;
                    r.score = m->score(sum_stats(st, m->width()).data()).score;
                    results.push_back(r);
                }
            }
            for (std::size_t s = 0; s < inputs.size(); ++s) rows[s].results.push_back(results[s]);
            names.push_back(m->name());
            sigs.push_back(signature(m->settings(), nrefs, short_sig, extra));
        }
        std::fputs(format_systems(names, sigs, rows, paired_bs ? "bs" : paired_ar ? "ar" : "", paired_bs ? paired_bs_n : paired_ar_n,
                                  width, json).c_str(), stdout);
    });
}
