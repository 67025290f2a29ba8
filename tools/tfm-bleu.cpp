// tfm-bleu: BLEU, chrF, chrF++ and TER of hypotheses against one or more references, as
// sacreBLEU computes and prints them, with its confidence intervals and paired tests.
#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/eval/evaluate.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-bleu", "BLEU, chrF and TER of hypotheses against references, as sacreBLEU computes them.",
        "  tfm-translate -m model < test.de | tfm-bleu test.en\n"
        "  tfm-bleu ref1.en ref2.en -i hyp.txt -m bleu,chrf,ter\n"
        "  tfm-bleu test.en -i base.txt new.txt --paired-bs\n");
    using tfm::tool::in_range;
    std::vector<std::string> refs, inputs;
    std::string tokenize = "13a", smooth = "exp", format = "text";
    std::size_t num_refs = 1, confidence_n = 1000, paired_bs_n = 1000, paired_ar_n = 10000;
    bool confidence = false, paired_bs = false, paired_ar = false;
    tfm::EvalRequest r;
    auto& app = tool.app();
    app.add_option("references", refs, "Reference files, line-aligned with the hypotheses (gzip ok)")->required()
        ->check(CLI::ExistingFile);
    app.add_option("-i,--input", inputs, "Hypothesis files, one per system (default: stdin)");
    app.add_option("-m,--metrics", r.metrics, "Metrics: bleu, chrf, ter (default bleu)")->delimiter(',')
        ->check(CLI::IsMember({"bleu", "chrf", "ter"}));
    app.add_option("--num-refs", num_refs, "Each line of the one reference file holds this many tab-separated references")
        ->check(in_range(1, 1000));
    app.add_flag("--sentence-level", r.sentence_level, "A score per segment, one line each (one metric, one system)");
    app.add_option("--tokenize", tokenize, "BLEU's tokenizer: 13a, intl, char, none (default 13a)")
        ->check(CLI::IsMember({"13a", "intl", "char", "none"}));
    app.add_flag("--lowercase", r.bleu.lowercase, "BLEU: case-insensitive");
    app.add_option("--smooth-method", smooth, "BLEU's smoothing: exp, floor, add-k, none (default exp)")
        ->check(CLI::IsMember({"exp", "floor", "add-k", "none"}));
    app.add_option("--smooth-value", r.bleu.smooth_value, "BLEU: the value for floor (default 0.1) and add-k (default 1)")
        ->check(in_range(0, 1e6));
    app.add_option("--chrf-char-order", r.chrf.char_order, "chrF: character n-gram order (default 6)")->check(in_range(0, 32));
    app.add_option("--chrf-word-order", r.chrf.word_order, "chrF: word n-gram order (default 0; 2 is chrF++)")->check(in_range(0, 32));
    app.add_option("--chrf-beta", r.chrf.beta, "chrF: weight of recall against precision (default 2)")->check(in_range(0, 1000));
    app.add_flag("--chrf-whitespace", r.chrf.whitespace, "chrF: keep whitespace in character n-grams");
    app.add_flag("--chrf-lowercase", r.chrf.lowercase, "chrF: case-insensitive");
    app.add_flag("--chrf-eps-smoothing", r.chrf.eps_smoothing, "chrF: epsilon smoothing (chrF++.py, NLTK, Moses)");
    app.add_flag("--ter-case-sensitive", r.ter.case_sensitive, "TER: case-sensitive");
    app.add_flag("--ter-asian-support", r.ter.asian_support, "TER: CJK characters and punctuation apart");
    app.add_flag("--ter-no-punct", r.ter.no_punct, "TER: remove punctuation");
    app.add_flag("--ter-normalized", r.ter.normalized, "TER: basic normalization and tokenization");
    app.add_flag("--confidence", confidence, "Bootstrap the 95% confidence interval (one system)");
    app.add_option("--confidence-n", confidence_n, "Bootstrap resamples (default 1000)")->check(in_range(1, 1e6));
    auto* bs = app.add_flag("--paired-bs", paired_bs, "Paired bootstrap resampling test of each system against the first");
    app.add_flag("--paired-ar", paired_ar, "Paired approximate randomization test of each system against the first")->excludes(bs);
    app.add_option("--paired-bs-n", paired_bs_n, "Paired bootstrap resamples (default 1000)")->check(in_range(1, 1e6));
    app.add_option("--paired-ar-n", paired_ar_n, "Approximate randomization trials (default 10000)")->check(in_range(1, 1e7));
    app.add_option("--seed", r.seed, "Seed of the resampling, numpy's default_rng (default 12345, sacreBLEU's)")
        ->check(in_range(0, tfm::tool::kMaxCount));
    app.add_flag("-b,--score-only", r.score_only, "Print the score alone");
    app.add_option("-w,--width", r.width, "Decimals of the scores (default 2)")->check(in_range(0, 17));
    app.add_flag("--short", r.short_names, "Short signature names");
    app.add_option("-f,--format", format, "Output: text or json (default text)")->check(CLI::IsMember({"text", "json"}));
    return tool.run(argc, argv, [&] {
        if (inputs.empty()) inputs.push_back("-");
        r.bleu.tokenizer = tfm::parse_bleu_tokenizer(tokenize);
        r.bleu.smooth = tfm::parse_bleu_smooth(smooth);
        r.confidence_n = confidence ? confidence_n : 0;
        r.paired = paired_bs ? 'b' : paired_ar ? 'a' : 0;
        r.paired_n = paired_bs ? paired_bs_n : paired_ar_n;
        r.json = format == "json";
        std::vector<std::string> names;
        for (const std::string& i : inputs) names.push_back(i == "-" ? "stdin" : i);
        tfm::evaluate(tfm::read_test_set(refs, inputs, num_refs), names, r, stdout);
    });
}
