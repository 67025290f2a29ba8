#include "tfm/eval/chrf.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "tfm/base/error.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/eval/ngrams.hpp"

namespace tfm {

namespace {

// Python's string.punctuation.
bool ascii_punct(char32_t c) {
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// sacreBLEU's _remove_punctuation: a punctuation mark at a word's end (else at its start) is
// a word of its own ("(hi)" gives "(hi" and ")", as sacreBLEU's issue #124 keeps it).
std::vector<std::u32string_view> punct_split_words(std::u32string_view text) {
    std::vector<std::u32string_view> out;
    for (std::u32string_view w : py_split(text)) {
        if (w.size() == 1) {
            out.push_back(w);
        } else if (ascii_punct(w.back())) {
            out.push_back(w.substr(0, w.size() - 1));
            out.push_back(w.substr(w.size() - 1));
        } else if (ascii_punct(w.front())) {
            out.push_back(w.substr(0, 1));
            out.push_back(w.substr(1));
        } else {
            out.push_back(w);
        }
    }
    return out;
}

// What chrF counts in one text: its characters (whitespace removed unless kept) and the ids
// of its words.
struct Text {
    std::u32string text, chars, words;
};

}  // namespace

Chrf::Chrf(ChrfOptions opt) : opt_(opt) {
    if (opt_.char_order < 0 || opt_.word_order < 0 || opt_.char_order + opt_.word_order == 0 ||
        opt_.char_order + opt_.word_order > 64)
        throw Error("chrF: the character and word orders must be 0..64 and not both 0");
    if (opt_.beta < 0 || opt_.beta > 1000) throw Error("chrF: beta must be 0..1000");
}

std::string Chrf::name() const { return "chrF" + std::to_string(opt_.beta) + std::string(std::size_t(opt_.word_order), '+'); }

void Chrf::segment(std::string_view hypothesis, const std::vector<std::string_view>& references, double* stats) const {
    if (references.empty()) throw Error("chrF: a segment without references");
    WordIds vocab;  // over the hypothesis and every reference: their texts live as long as it
    std::vector<std::unique_ptr<Text>> texts;
    const auto prepare = [&](std::string_view line) -> const Text& {
        auto t = std::make_unique<Text>();
        t->text = decode_utf8(line);
        if (opt_.lowercase) t->text = py_lower(t->text);
        if (opt_.whitespace) {
            t->chars = t->text;
        } else {
            t->chars.reserve(t->text.size());
            for (char32_t c : t->text)
                if (!py_isspace(c)) t->chars += c;
        }
        if (opt_.word_order > 0) t->words = vocab.ids(punct_split_words(t->text));
        texts.push_back(std::move(t));
        return *texts.back();
    };
    const Text& hyp = prepare(hypothesis);
    const std::size_t orders = std::size_t(opt_.char_order + opt_.word_order);
    std::vector<double> candidate(width());
    double best = -1.0;
    for (std::string_view r : references) {
        const Text& ref = prepare(r);
        // One order at a time, so that a long line holds two tables of counts, not twelve.
        for (std::size_t k = 0; k < orders; ++k) {
            const bool chars = k < std::size_t(opt_.char_order);
            const std::size_t n = chars ? k + 1 : k + 1 - std::size_t(opt_.char_order);
            const unsigned bits = chars ? kCodePointBits : kWordIdBits;
            const NgramCounts h = count_ngrams(chars ? hyp.chars : hyp.words, n, bits);
            const NgramCounts rc = count_ngrams(chars ? ref.chars : ref.words, n, bits);
            candidate[3 * k] = rc.empty() ? 0.0 : double(h.total());  // no hits without a reference n-gram
            candidate[3 * k + 1] = double(rc.total());
            candidate[3 * k + 2] = double(clipped_matches(h, rc));
        }
        const double f = f_score(candidate.data());
        if (f > best) {
            best = f;
            std::copy(candidate.begin(), candidate.end(), stats);
        }
    }
}

double Chrf::f_score(const double* stats) const {
    const double eps = 1e-16;
    const int order = opt_.char_order + opt_.word_order;
    const double factor = double(opt_.beta) * double(opt_.beta);
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;
    for (int i = 0; i < order; ++i) {
        const double n_hyp = stats[3 * i], n_ref = stats[3 * i + 1], n_match = stats[3 * i + 2];
        const double prec = n_hyp > 0 ? n_match / n_hyp : eps;
        const double rec = n_ref > 0 ? n_match / n_ref : eps;
        const double denom = factor * prec + rec;
        score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            ++effective_order;
        }
    }
    if (opt_.eps_smoothing) return 100 * score / order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= effective_order;
        avg_rec /= effective_order;
    }
    if (avg_prec + avg_rec != 0) {
        score = (1 + factor) * avg_prec * avg_rec;
        score /= (factor * avg_prec) + avg_rec;
        return 100 * score;
    }
    return 0.0;
}

Score Chrf::score(const double* stats) const { return {name(), f_score(stats), ""}; }

SignatureFields Chrf::settings() const {
    return {{"case", "c", opt_.lowercase ? "lc" : "mixed"},
            {"eff", "e", opt_.eps_smoothing ? "no" : "yes"},
            {"nc", "nc", std::to_string(opt_.char_order)},
            {"nw", "nw", std::to_string(opt_.word_order)},
            {"space", "s", opt_.whitespace ? "yes" : "no"}};
}

}  // namespace tfm
