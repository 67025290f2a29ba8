#include "tfm/eval/bleu.hpp"

#include <cmath>
#include <cstdio>

#include "tfm/base/error.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/eval/ngrams.hpp"

namespace tfm {

namespace {

constexpr std::size_t kOrder = 4;

// sacreBLEU's my_log: log, with log(0) floored to -9999999999.
double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

double smooth_default(BleuSmooth s) { return s == BleuSmooth::floor ? 0.1 : s == BleuSmooth::add_k ? 1.0 : 0.0; }

}  // namespace

BleuSmooth parse_bleu_smooth(std::string_view name) {
    if (name == "none") return BleuSmooth::none;
    if (name == "floor") return BleuSmooth::floor;
    if (name == "add-k") return BleuSmooth::add_k;
    if (name == "exp") return BleuSmooth::exp;
    throw Error("unknown smoothing '" + std::string(name) + "' (none, floor, add-k, exp)");
}

std::string BleuScore::verbose() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %zu ref_len = %zu)",
                  precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty, ratio, hyp_len, ref_len);
    return buf;
}

BleuScore compute_bleu(const double* stats, BleuSmooth smooth, double smooth_value, bool effective_order) {
    if (smooth_value < 0) smooth_value = smooth_default(smooth);
    BleuScore b;
    const double sys_len = stats[0], ref_len = stats[1];
    b.hyp_len = std::size_t(sys_len);
    b.ref_len = std::size_t(ref_len);
    b.ratio = ref_len != 0 ? sys_len / ref_len : 0.0;
    b.brevity_penalty = 1.0;
    if (sys_len < ref_len) b.brevity_penalty = sys_len > 0 ? std::exp(1 - ref_len / sys_len) : 0.0;
    double correct[kOrder], total[kOrder];
    bool any = false;
    for (std::size_t n = 0; n < kOrder; ++n) {
        correct[n] = stats[2 + n];
        total[n] = stats[2 + kOrder + n];
        any = any || correct[n] != 0;
    }
    // No n-gram matches at all: 0 (sacreBLEU stops early here, its issue #141).
    if (!any) return b;
    double smooth_mteval = 1.0;
    std::size_t eff_order = kOrder;
    for (std::size_t n = 0; n < kOrder; ++n) {
        if (smooth == BleuSmooth::add_k && n > 0) {
            correct[n] += smooth_value;
            total[n] += smooth_value;
        }
        if (total[n] == 0) break;
        if (effective_order) eff_order = n + 1;
        if (correct[n] == 0) {
            if (smooth == BleuSmooth::exp) {
                smooth_mteval *= 2;
                b.precisions[n] = 100. / (smooth_mteval * total[n]);
            } else if (smooth == BleuSmooth::floor) {
                b.precisions[n] = 100. * smooth_value / total[n];
            }
        } else {
            b.precisions[n] = 100. * correct[n] / total[n];
        }
    }
    double log_sum = 0;
    for (std::size_t n = 0; n < eff_order; ++n) log_sum += floored_log(b.precisions[n]);
    b.score = b.brevity_penalty * std::exp(log_sum / double(eff_order));
    return b;
}

Bleu::Bleu(BleuOptions opt) : opt_(opt) {}

void Bleu::segment(std::string_view hypothesis, const std::vector<std::string_view>& references, double* stats) const {
    if (references.empty()) throw Error("BLEU: a segment without references");
    const auto preprocess = [&](std::string_view line) {
        std::u32string text = decode_utf8(line);
        if (opt_.lowercase) text = py_lower(text);
        return tokenize(opt_.tokenizer, py_rstrip(text));
    };
    WordIds vocab;
    const std::u32string hyp_text = preprocess(hypothesis);
    const std::u32string hyp = vocab.ids(split_spaces(hyp_text));
    std::vector<std::u32string> ref_texts, refs;
    ref_texts.reserve(references.size());
    refs.reserve(references.size());
    for (std::string_view r : references) {
        ref_texts.push_back(preprocess(r));
        refs.push_back(vocab.ids(split_spaces(ref_texts.back())));
    }
    // The closest reference length, the shorter on a tie.
    std::size_t closest = refs.front().size(), diff = 0;
    for (std::size_t k = 0; k < refs.size(); ++k) {
        const std::size_t len = refs[k].size(), d = len > hyp.size() ? len - hyp.size() : hyp.size() - len;
        if (k == 0 || d < diff || (d == diff && len < closest)) closest = len, diff = d;
    }
    stats[0] = double(hyp.size());
    stats[1] = double(closest);
    for (std::size_t n = 1; n <= kOrder; ++n) {
        NgramCounts ref = count_ngrams(refs.front(), n, kWordIdBits);
        for (std::size_t k = 1; k < refs.size(); ++k) ref = max_counts(ref, count_ngrams(refs[k], n, kWordIdBits));
        const NgramCounts h = count_ngrams(hyp, n, kWordIdBits);
        stats[2 + n - 1] = double(clipped_matches(h, ref));
        stats[2 + kOrder + n - 1] = double(h.total());
    }
}

BleuScore Bleu::details(const double* stats, bool effective_order) const {
    return compute_bleu(stats, opt_.smooth, opt_.smooth_value, effective_order);
}

Score Bleu::score(const double* stats) const {
    const BleuScore b = details(stats, opt_.effective_order);
    return {name(), b.score, b.verbose()};
}

Score Bleu::sentence(const double* stats) const {
    const BleuScore b = details(stats, true);
    return {name(), b.score, b.verbose()};
}

SignatureFields Bleu::settings(bool effective_order) const {
    std::string smooth = opt_.smooth == BleuSmooth::none    ? "none"
                         : opt_.smooth == BleuSmooth::floor ? "floor"
                         : opt_.smooth == BleuSmooth::add_k ? "add-k"
                                                            : "exp";
    if (opt_.smooth == BleuSmooth::floor || opt_.smooth == BleuSmooth::add_k) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "[%.2f]", opt_.smooth_value < 0 ? smooth_default(opt_.smooth) : opt_.smooth_value);
        smooth += buf;
    }
    return {{"case", "c", opt_.lowercase ? "lc" : "mixed"},
            {"eff", "e", effective_order ? "yes" : "no"},
            {"tok", "tok", tokenizer_name(opt_.tokenizer)},
            {"smooth", "s", smooth}};
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    if (hypotheses.size() != references.size())
        throw Error(std::to_string(hypotheses.size()) + " hypotheses for " + std::to_string(references.size()) +
                    " references");
    const Bleu bleu;
    std::vector<double> sum(bleu.width(), 0.0), seg(bleu.width());
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        bleu.segment(hypotheses[i], {references[i]}, seg.data());
        for (std::size_t k = 0; k < seg.size(); ++k) sum[k] += seg[k];
    }
    return bleu.details(sum.data(), false);
}

}  // namespace tfm
