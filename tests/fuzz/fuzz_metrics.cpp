// sacreBLEU's metrics on arbitrary bytes: each line is "hypothesis<TAB>reference<TAB>..."
// (invalid UTF-8, every kind of space, CJK, punctuation, long runs). Every tokenizer and option
// gives statistics that are finite and consistent (matches within the counts, BLEU and chrF
// in [0, 100], TER's edits at most what rewriting word by word takes, plus the shifts).
#include <cmath>
#include <string>
#include <vector>

#include "tfm/eval/bleu.hpp"
#include "tfm/eval/chrf.hpp"
#include "tfm/eval/ter.hpp"

namespace {

void check_score(const tfm::Metric& m, const std::vector<double>& st, double lo, double hi) {
    for (double v : st)
        if (!std::isfinite(v) || v < 0) __builtin_trap();
    const double s = m.score(st.data()).score, t = m.sentence(st.data()).score;
    if (!(s >= lo && s <= hi) || !(t >= lo && t <= hi)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;  // TER is quadratic in a segment's words: keep each run short
    const std::string text(reinterpret_cast<const char*>(data), size);
    static const std::vector<tfm::Bleu> bleus = [] {
        std::vector<tfm::Bleu> v;
        for (tfm::BleuTokenizer t : {tfm::BleuTokenizer::v13a, tfm::BleuTokenizer::intl, tfm::BleuTokenizer::chars,
                                     tfm::BleuTokenizer::none})
            for (bool lc : {false, true}) v.emplace_back(tfm::BleuOptions{t, lc, tfm::BleuSmooth::exp, -1, false});
        return v;
    }();
    static const tfm::Chrf chrf, chrf_pp({6, 2, 2, true, true, false});
    static const tfm::Ter ter, ter_all({true, true, true, true});
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view line = std::string_view(text).substr(start, end - start);
        std::vector<std::string_view> fields;
        for (std::size_t at = 0;;) {
            const std::size_t tab = line.find('\t', at);
            fields.push_back(line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
            if (tab == std::string_view::npos) break;
            at = tab + 1;
        }
        if (fields.size() < 2) fields.push_back("");
        const std::vector<std::string_view> refs(fields.begin() + 1, fields.end());
        for (const tfm::Bleu& b : bleus) {
            std::vector<double> st(b.width());
            b.segment(fields[0], refs, st.data());
            for (int n = 0; n < 4; ++n)
                if (st[2 + n] > st[6 + n]) __builtin_trap();  // matches within the hypothesis' n-grams
            check_score(b, st, 0, 100.0000001);
        }
        for (const tfm::Chrf* c : {&chrf, &chrf_pp}) {
            std::vector<double> st(c->width());
            c->segment(fields[0], refs, st.data());
            for (std::size_t k = 0; k < st.size(); k += 3)
                if (st[k + 2] > st[k] || st[k + 2] > st[k + 1]) __builtin_trap();
            check_score(*c, st, 0, 100.0000001);
        }
        for (const tfm::Ter* t : {&ter, &ter_all}) {
            std::vector<double> st(t->width());
            t->segment(fields[0], refs, st.data());
            check_score(*t, st, 0, 1e12);
        }
        start = end + 1;
    }
    return 0;
}
