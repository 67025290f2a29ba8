#include "tfm/decode/bleu.hpp"

#include <cmath>
#include <cstdio>
#include <map>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"

namespace tfm {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// mteval-v13a's punctuation class: {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ /
bool punct(char c) {
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
           (c >= ':' && c <= '@') || c == '/';
}

// The bytes of the whitespace character starting at s[i] (str.isspace()), 0 when there is none.
std::size_t space_at(std::string_view s, std::size_t i) {
    const auto u = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    const unsigned c = u(0);
    if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
    if (c == 0xc2 && (u(1) == 0x85 || u(1) == 0xa0)) return 2;                         // U+0085, U+00A0
    if (c == 0xe1 && u(1) == 0x9a && u(2) == 0x80) return 3;                           // U+1680
    if (c == 0xe2 && u(1) == 0x80 && (u(2) <= 0x8a && u(2) >= 0x80)) return 3;         // U+2000..U+200A
    if (c == 0xe2 && u(1) == 0x80 && (u(2) == 0xa8 || u(2) == 0xa9 || u(2) == 0xaf)) return 3;  // U+2028/9, U+202F
    if (c == 0xe2 && u(1) == 0x81 && u(2) == 0x9f) return 3;                           // U+205F
    if (c == 0xe3 && u(1) == 0x80 && u(2) == 0x80) return 3;                           // U+3000
    return 0;
}

}  // namespace

std::string tokenize_13a(std::string_view text) {
    std::string line(text);
    replace_all(line, "<skipped>", "");
    replace_all(line, "-\n", "");
    replace_all(line, "\n", " ");
    if (line.find('&') != std::string::npos) {
        replace_all(line, "&quot;", "\"");
        replace_all(line, "&amp;", "&");
        replace_all(line, "&lt;", "<");
        replace_all(line, "&gt;", ">");
    }
    line = " " + line + " ";
    // Each rule is one left-to-right pass of non-overlapping matches, as re.sub does.
    std::string a;
    for (char c : line) {
        if (punct(c)) a += ' ', a += c, a += ' ';
        else a += c;
    }
    std::string b;  // ([^0-9])([\.,]) -> "\1 \2 "
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (i + 1 < a.size() && !digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
            b += a[i], b += ' ', b += a[i + 1], b += ' ';
            ++i;
        } else {
            b += a[i];
        }
    }
    std::string c;  // ([\.,])([^0-9]) -> " \1 \2"
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !digit(b[i + 1])) {
            c += ' ', c += b[i], c += ' ', c += b[i + 1];
            ++i;
        } else {
            c += b[i];
        }
    }
    std::string d;  // ([0-9])(-) -> "\1 \2 "
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (i + 1 < c.size() && digit(c[i]) && c[i + 1] == '-') {
            d += c[i], d += ' ', d += '-', d += ' ';
            ++i;
        } else {
            d += c[i];
        }
    }
    std::string out;
    for (std::string_view w : split_words(d)) out.append(out.empty() ? "" : " ").append(w);
    return out;
}

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t start = 0, i = 0;
    while (i < line.size()) {
        if (const std::size_t n = space_at(line, i)) {
            if (i > start) words.push_back(line.substr(start, i - start));
            i += n;
            start = i;
        } else {
            ++i;
        }
    }
    if (i > start) words.push_back(line.substr(start, i - start));
    return words;
}

void BleuStats::add(std::string_view hypothesis, std::string_view reference) {
    auto words = [](const std::string& s) {
        std::vector<std::string> w;
        for (std::string_view t : split_words(s)) w.emplace_back(t);
        return w;
    };
    const auto h = words(tokenize_13a(hypothesis)), r = words(tokenize_13a(reference));
    hyp_len += h.size();
    ref_len += r.size();
    for (std::size_t n = 1; n <= 4; ++n) {
        std::map<std::vector<std::string>, std::size_t> ref_counts;
        for (std::size_t i = 0; i + n <= r.size(); ++i) ++ref_counts[{r.begin() + long(i), r.begin() + long(i + n)}];
        std::map<std::vector<std::string>, std::size_t> hyp_counts;
        for (std::size_t i = 0; i + n <= h.size(); ++i) ++hyp_counts[{h.begin() + long(i), h.begin() + long(i + n)}];
        for (const auto& [gram, count] : hyp_counts) {
            auto it = ref_counts.find(gram);
            correct[n - 1] += std::min(count, it == ref_counts.end() ? 0 : it->second);
            total[n - 1] += count;
        }
    }
}

Bleu corpus_bleu(const BleuStats& s) {
    Bleu b;
    b.hyp_len = s.hyp_len;
    b.ref_len = s.ref_len;
    b.ratio = s.ref_len ? double(s.hyp_len) / double(s.ref_len) : 0.0;
    b.brevity_penalty = s.hyp_len >= s.ref_len ? 1.0 : (s.hyp_len ? std::exp(1.0 - double(s.ref_len) / double(s.hyp_len)) : 0.0);
    // No n-gram matches at all: 0, precisions 0 (sacreBLEU stops early here, its issue #141;
    // smoothing would otherwise give a score to a hypothesis sharing no word).
    if (s.correct == std::array<std::size_t, 4>{}) return b;
    double smooth = 1.0;
    for (std::size_t n = 0; n < 4; ++n) {
        if (s.total[n] == 0) break;
        if (s.correct[n] == 0) {
            smooth *= 2;
            b.precisions[n] = 100.0 / (smooth * double(s.total[n]));
        } else {
            b.precisions[n] = 100.0 * double(s.correct[n]) / double(s.total[n]);
        }
    }
    double log_sum = 0;
    for (double p : b.precisions) log_sum += p > 0 ? std::log(p) : -9999999999.0;
    b.score = b.brevity_penalty * std::exp(log_sum / 4.0);
    return b;
}

Bleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    if (hypotheses.size() != references.size())
        throw Error(std::to_string(hypotheses.size()) + " hypotheses for " + std::to_string(references.size()) +
                    " references");
    BleuStats s;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) s.add(hypotheses[i], references[i]);
    return corpus_bleu(s);
}

std::string Bleu::format() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %zu ref_len = %zu)",
                  score, precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty, ratio, hyp_len,
                  ref_len);
    return buf;
}

}  // namespace tfm
