#include "tfm/eval/ter.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/eval/ngrams.hpp"
#include "tfm/eval/tokenizers.hpp"

namespace tfm {

namespace {

// --- Tokenization --------------------------------------------------------------------------

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

// The CJK characters _normalize_asian puts spaces around, its classes together.
bool asian_apart(char32_t c) {
    return in(c, 0x4e00, 0x9fff) || in(c, 0x3400, 0x4dbf) || in(c, 0x31c0, 0x31ef) || in(c, 0x2e80, 0x2eff) ||
           in(c, 0x3300, 0x33ff) || in(c, 0xf900, 0xfaff) || in(c, 0xfe30, 0xfe4f) || in(c, 0x3200, 0x3f22);
}

bool asian_punct(char32_t c) {
    return c == 0x3001 || c == 0x3002 || in(c, 0x3008, 0x3011) || in(c, 0x3014, 0x301f) || in(c, 0xff61, 0xff65) ||
           c == 0x30fb;
}

bool full_width_punct(char32_t c) {
    return c == 0xff0e || c == 0xff0c || c == 0xff1f || c == 0xff1a || c == 0xff1b || c == 0xff01 || c == 0xff02 ||
           c == 0xff08 || c == 0xff09;
}

std::u32string normalize_general_and_western(std::u32string s) {
    replace_all(s, U"\n-", U"");
    replace_all(s, U"\n", U" ");
    replace_all(s, U"&quot;", U"\"");
    replace_all(s, U"&amp;", U"&");
    replace_all(s, U"&lt;", U"<");
    replace_all(s, U"&gt;", U">");
    s = mteval_punct(U" " + s + U" ");
    replace_all(s, U"'s ", U" 's ");  // possessives; "'s$" cannot match a string that ends in a space
    return mteval_numbers(s);
}

// The three Hiragana/Katakana rules of _normalize_asian match only a string that is all kana
// from its first character, which a normalized string (it starts with a space) never is.
std::u32string normalize_asian(std::u32string_view s) {
    std::u32string out;
    out.reserve(s.size() * 2);
    for (char32_t c : s) {
        if (asian_apart(c) || asian_punct(c) || full_width_punct(c)) out += U' ', out += c, out += U' ';
        else out += c;
    }
    return out;
}

// --- Edit distance -------------------------------------------------------------------------

constexpr std::int32_t kInf = std::int32_t(1) << 30;
constexpr int kBeamWidth = 25, kMaxShiftSize = 10, kMaxShiftDist = 50, kMaxShiftCandidates = 1000;
enum : char { kNop = ' ', kSub = 's', kIns = 'i', kDel = 'd', kUndef = 'x' };

struct Cell {
    std::int32_t cost;
    char op;
};

// sacreBLEU's BeamEditDistance against one reference. Rows of the matrix depend only on the
// hypothesis words before them, so a candidate shift reuses the rows of the words it shares
// with the last full computation (the `base`) from the start: the results are those of a
// full computation, as sacreBLEU's prefix cache makes them.
class BeamEditDistance {
public:
    explicit BeamEditDistance(const std::u32string& ref) : ref_(ref), nr_(ref.size()) {}

    // The distance and the trace of operations; the words become the base.
    std::pair<std::int32_t, std::string> full(const std::u32string& words) {
        prepare(words.size());
        const std::size_t prefix = common_prefix(words);
        base_words_ = words;
        for (std::size_t i = 0; i <= prefix; ++i) rows_[i] = &base_[i * (nr_ + 1)];
        for (std::size_t i = prefix + 1; i <= nh_; ++i) rows_[i] = &base_[i * (nr_ + 1)];
        fill(words, prefix);
        std::string trace;
        std::size_t i = nh_, j = nr_;
        while (i > 0 || j > 0) {
            const char op = rows_[i][j].op;
            trace += op;
            if (op == kSub || op == kNop) --i, --j;
            else if (op == kIns) --j;
            else if (op == kDel) --i;
            else throw Error("TER: the edit distance's trace left its beam");
        }
        std::reverse(trace.begin(), trace.end());
        return {rows_[nh_][nr_].cost, trace};
    }

    // The distance of words as long as the base's.
    std::int32_t cost(const std::u32string& words) {
        const std::size_t prefix = common_prefix(words);
        for (std::size_t i = 0; i <= nh_; ++i) rows_[i] = i <= prefix ? &base_[i * (nr_ + 1)] : &scratch_[i * (nr_ + 1)];
        fill(words, prefix);
        return rows_[nh_][nr_].cost;
    }

private:
    void prepare(std::size_t nh) {
        if (nh == nh_ && !base_.empty()) return;
        nh_ = nh;
        const std::size_t cells = (nh_ + 1) * (nr_ + 1);
        base_.assign(cells, Cell{kInf, kUndef});
        scratch_.assign(cells, Cell{kInf, kUndef});
        rows_.assign(nh_ + 1, nullptr);
        for (std::size_t j = 0; j <= nr_; ++j) base_[j] = Cell{std::int32_t(j), kIns};
        base_words_.clear();
        length_ratio_ = nh_ ? double(nr_) / double(nh_) : 1.0;
        beam_ = kBeamWidth < length_ratio_ / 2 ? std::int64_t(std::ceil(length_ratio_ / 2 + kBeamWidth)) : kBeamWidth;
    }

    std::size_t common_prefix(const std::u32string& words) const {
        std::size_t p = 0;
        while (p < words.size() && p < base_words_.size() && words[p] == base_words_[p]) ++p;
        return p;
    }

    // Rows prefix+1 .. nh of words.
    void fill(const std::u32string& words, std::size_t prefix) {
        for (std::size_t i = prefix + 1; i <= nh_; ++i) {
            Cell* row = rows_[i];
            const Cell* up = rows_[i - 1];
            std::fill(row, row + nr_ + 1, Cell{kInf, kUndef});
            const std::int64_t diag = std::int64_t(std::floor(double(i) * length_ratio_));
            const std::size_t min_j = std::size_t(std::max<std::int64_t>(0, diag - beam_));
            std::size_t max_j = std::size_t(std::max<std::int64_t>(0, std::min<std::int64_t>(std::int64_t(nr_) + 1, diag + beam_)));
            if (i == nh_) max_j = nr_ + 1;
            for (std::size_t j = min_j; j < max_j; ++j) {
                if (j == 0) {
                    row[0] = Cell{up[0].cost + 1, kDel};
                    continue;
                }
                const bool same = words[i - 1] == ref_[j - 1];
                Cell& c = row[j];
                const std::int32_t sub = up[j - 1].cost + (same ? 0 : 1), del = up[j].cost + 1, ins = row[j - 1].cost + 1;
                if (c.cost > sub) c = Cell{sub, same ? char(kNop) : char(kSub)};
                if (c.cost > del) c = Cell{del, kDel};
                if (c.cost > ins) c = Cell{ins, kIns};
            }
        }
    }

    const std::u32string& ref_;
    std::size_t nr_, nh_ = 0;
    std::vector<Cell> base_, scratch_;
    std::vector<Cell*> rows_;
    std::u32string base_words_;
    double length_ratio_ = 1.0;
    std::int64_t beam_ = kBeamWidth;
};

// words with words[start, start+length) moved to before position target (Python's slices).
std::u32string perform_shift(const std::u32string& w, std::size_t start, std::size_t length, std::size_t target) {
    const auto slice = [&](std::size_t a, std::size_t b) {
        a = std::min(a, w.size());
        b = std::min(b, w.size());
        return a < b ? w.substr(a, b - a) : std::u32string();
    };
    if (target < start) return slice(0, target) + slice(start, start + length) + slice(target, start) + slice(start + length, w.size());
    if (target > start + length)
        return slice(0, start) + slice(start + length, target) + slice(start, start + length) + slice(target, w.size());
    return slice(0, start) + slice(start + length, length + target) + slice(start, start + length) + slice(length + target, w.size());
}

struct Shift {
    std::int32_t delta = 0;
    std::u32string words;
};

// One greedy shift step (sacreBLEU's _shift): the best-scoring shift of a run of hypothesis
// words that all match a run of reference words, ranked by score, length, earliest start and
// earliest target, over at most kMaxShiftCandidates candidates in all.
Shift best_shift(const std::u32string& h, const std::u32string& r, BeamEditDistance& ed, int& checked) {
    auto [pre_score, inv_trace] = ed.full(h);
    // The alignment of the flipped trace: rewriting the reference into the hypothesis.
    std::vector<std::int64_t> align(r.size(), -1);
    std::vector<int> hyp_err, ref_err;
    std::int64_t pos_h = -1, pos_r = -1;
    for (char op : inv_trace) {
        op = op == kIns ? char(kDel) : op == kDel ? char(kIns) : op;
        if (op == kNop || op == kSub) {
            ++pos_h, ++pos_r;
            align[std::size_t(pos_r)] = pos_h;
            hyp_err.push_back(op == kSub);
            ref_err.push_back(op == kSub);
        } else if (op == kIns) {
            ++pos_h;
            hyp_err.push_back(1);
        } else {
            ++pos_r;
            align[std::size_t(pos_r)] = pos_h;
            ref_err.push_back(1);
        }
    }
    const auto errors = [](const std::vector<int>& e, std::size_t a, std::size_t n) {
        int s = 0;
        for (std::size_t k = a; k < a + n && k < e.size(); ++k) s += e[k];
        return s;
    };
    bool found = false;
    std::int32_t best_score = 0;
    std::int64_t best_len = 0, best_neg_start = 0, best_neg_idx = 0;
    std::u32string best_words;
    const std::size_t nh = h.size(), nr = r.size();
    bool stop = false;
    for (std::size_t sh = 0; sh < nh && !stop; ++sh) {
        for (std::size_t sr = 0; sr < nr && !stop; ++sr) {
            if ((sr > sh ? sr - sh : sh - sr) > std::size_t(kMaxShiftDist)) continue;
            for (std::size_t length = 0; h[sh + length] == r[sr + length] && length < std::size_t(kMaxShiftSize);) {
                ++length;
                // The candidate pair (sh, sr, length).
                if (errors(hyp_err, sh, length) != 0 && errors(ref_err, sr, length) != 0 &&
                    !(std::int64_t(sh) <= align[sr] && align[sr] < std::int64_t(sh + length))) {
                    std::int64_t prev = -1;
                    for (std::int64_t offset = -1; offset < std::int64_t(length); ++offset) {
                        const std::int64_t idx = std::int64_t(sr) + offset == -1 ? 0 : align[std::size_t(std::int64_t(sr) + offset)] + 1;
                        if (idx == prev) continue;
                        prev = idx;
                        std::u32string shifted = perform_shift(h, sh, length, std::size_t(idx));
                        const std::int32_t score = pre_score - ed.cost(shifted);
                        ++checked;
                        const auto key = std::make_tuple(score, std::int64_t(length), -std::int64_t(sh), -idx);
                        if (!found || key > std::make_tuple(best_score, best_len, best_neg_start, best_neg_idx)) {
                            found = true;
                            std::tie(best_score, best_len, best_neg_start, best_neg_idx) = key;
                            best_words = std::move(shifted);
                        }
                    }
                }
                if (checked >= kMaxShiftCandidates) {
                    stop = true;
                    break;
                }
                if (nh == sh + length || nr == sr + length) break;
            }
        }
    }
    if (!found) return {0, h};
    return {best_score, std::move(best_words)};
}

}  // namespace

std::u32string ter_tokenize(std::u32string_view line, const TerOptions& opt) {
    if (line.empty()) return {};
    std::u32string s = opt.case_sensitive ? std::u32string(line) : py_lower(line);
    if (opt.normalized) {
        s = normalize_general_and_western(std::move(s));
        if (opt.asian_support) s = normalize_asian(s);
    }
    if (opt.no_punct) {
        std::u32string kept;
        for (char32_t c : s) {
            const bool punct = c == '.' || c == ',' || c == '?' || c == ':' || c == ';' || c == '!' || c == '"' ||
                               c == '(' || c == ')';
            if (!punct && !(opt.asian_support && (asian_punct(c) || full_width_punct(c)))) kept += c;
        }
        s = std::move(kept);
    }
    std::u32string out;
    for (std::u32string_view w : py_split(s)) {
        if (!out.empty()) out += U' ';
        out.append(w);
    }
    return out;
}

std::pair<std::int64_t, std::size_t> translation_edit_rate(const std::u32string& hyp, const std::u32string& ref) {
    if (ref.empty()) return {std::int64_t(hyp.size()), 0};
    if ((hyp.size() + 1) > kTerMaxCells / (ref.size() + 1))
        throw Error("TER: a segment of " + std::to_string(hyp.size()) + " hypothesis and " + std::to_string(ref.size()) +
                    " reference words is past TER's limit of " + std::to_string(kTerMaxCells) +
                    " word pairs (its edit distance is quadratic)");
    BeamEditDistance ed(ref);
    std::int64_t shifts = 0;
    std::u32string words = hyp;
    int checked = 0;
    for (;;) {
        Shift s = best_shift(words, ref, ed, checked);
        if (checked >= kMaxShiftCandidates) break;
        if (s.delta <= 0) break;
        ++shifts;
        words = std::move(s.words);
    }
    return {shifts + ed.full(words).first, ref.size()};
}

void Ter::segment(std::string_view hypothesis, const std::vector<std::string_view>& references, double* stats) const {
    if (references.empty()) throw Error("TER: a segment without references");
    // sacreBLEU tokenizes each reference twice (_cache_references preprocesses the lines and
    // _extract_reference_info preprocesses them again); with --ter-normalized the second pass
    // can split more ("it's\u0085x" gives "it's x", then "it 's x"), so tfm does the same.
    // The vocabulary holds views into the texts: they all live as long as it does (reserved, so
    // that no text moves).
    std::vector<std::u32string> texts;
    texts.reserve(references.size() + 1);
    WordIds vocab;
    const auto words = [&](std::string_view line, bool reference) {
        std::u32string text = ter_tokenize(py_rstrip(decode_utf8(line)), opt_);
        if (reference) text = ter_tokenize(text, opt_);
        texts.push_back(std::move(text));
        return vocab.ids(split_spaces(texts.back()));
    };
    const std::u32string hyp = words(hypothesis, false);
    std::int64_t best = std::int64_t(1e16);
    double ref_lengths = 0;
    for (std::string_view r : references) {
        const std::u32string ref = words(r, true);
        const auto [edits, len] = translation_edit_rate(hyp, ref);
        ref_lengths += double(len);
        best = std::min(best, edits);
    }
    stats[0] = double(best);
    stats[1] = ref_lengths / double(references.size());
}

Score Ter::score(const double* stats) const {
    const double edits = stats[0], ref_len = stats[1];
    const double s = ref_len > 0 ? edits / ref_len : edits > 0 ? 1.0 : 0.0;
    return {name(), 100 * s, ""};
}

SignatureFields Ter::settings() const {
    return {{"case", "c", opt_.case_sensitive ? "mixed" : "lc"},
            {"tok", "t", "tercom"},
            {"norm", "nr", opt_.normalized ? "yes" : "no"},
            {"punct", "pn", opt_.no_punct ? "no" : "yes"},
            {"asian", "as", opt_.asian_support ? "yes" : "no"}};
}

}  // namespace tfm
