// tfm-bleu: corpus BLEU of a hypothesis file against a reference file, as sacreBLEU reports
// it by default (13a tokenisation, cased, brevity penalty).
#include "common/tool.hpp"
#include "tfm/decode/bleu.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/line_reader.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-bleu", "Corpus BLEU (sacreBLEU-compatible: 13a, cased) of hypotheses against references.",
        "  tfm-translate -m model < test.de | tfm-bleu test.en\n"
        "  tfm-bleu test.en -i hyp.txt --score-only\n");
    std::string ref, hyp = "-";
    bool score_only = false;
    tool.app().add_option("reference", ref, "Reference translations, one per line (gzip ok)")->required()
        ->check(CLI::ExistingFile);
    tool.app().add_option("-i,--input", hyp, "Hypotheses, line-aligned with the references (default: stdin)");
    tool.app().add_flag("-b,--score-only", score_only, "Print the score alone");
    return tool.run(argc, argv, [&] {
        tfm::LineReader h(hyp), r(ref);
        tfm::BleuStats stats;
        std::string a, b;
        std::size_t n = 0;
        for (;;) {
            const bool ha = h.next(a), hb = r.next(b);
            if (!ha && !hb) break;
            if (ha && !hb) throw tfm::Error("more hypotheses than the " + std::to_string(n) + " references");
            if (!ha && hb)
                throw tfm::Error("the hypotheses end after line " + std::to_string(n) + " but the references go on");
            stats.add(a, b);
            ++n;
        }
        tfm::Bleu bleu = tfm::corpus_bleu(stats);
        if (score_only)
            std::printf("%.2f\n", bleu.score);
        else
            std::printf("%s\n", bleu.format().c_str());
    });
}
