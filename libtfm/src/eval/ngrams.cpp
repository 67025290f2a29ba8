#include "tfm/eval/ngrams.hpp"

#include <algorithm>

namespace tfm {

NgramCounts count_ngrams(std::u32string_view seq, std::size_t n) {
    NgramCounts out;
    if (n == 0 || seq.size() < n) return out;
    std::vector<std::u32string_view> grams;
    grams.reserve(seq.size() - n + 1);
    for (std::size_t i = 0; i + n <= seq.size(); ++i) grams.push_back(seq.substr(i, n));
    std::sort(grams.begin(), grams.end());
    for (std::size_t i = 0; i < grams.size();) {
        std::size_t j = i + 1;
        while (j < grams.size() && grams[j] == grams[i]) ++j;
        out.emplace_back(grams[i], std::uint32_t(j - i));
        i = j;
    }
    return out;
}

std::size_t ngram_total(const NgramCounts& counts) {
    std::size_t total = 0;
    for (const auto& [gram, count] : counts) total += count;
    return total;
}

std::size_t clipped_matches(const NgramCounts& hyp, const NgramCounts& ref) {
    std::size_t matches = 0;
    auto r = ref.begin();
    for (const auto& [gram, count] : hyp) {
        while (r != ref.end() && r->first < gram) ++r;
        if (r == ref.end()) break;
        if (r->first == gram) matches += std::min(count, r->second);
    }
    return matches;
}

NgramCounts max_counts(const NgramCounts& a, const NgramCounts& b) {
    NgramCounts out;
    out.reserve(a.size() + b.size());
    auto i = a.begin(), j = b.begin();
    while (i != a.end() || j != b.end()) {
        if (j == b.end() || (i != a.end() && i->first < j->first)) {
            out.push_back(*i++);
        } else if (i == a.end() || j->first < i->first) {
            out.push_back(*j++);
        } else {
            out.emplace_back(i->first, std::max(i->second, j->second));
            ++i, ++j;
        }
    }
    return out;
}

std::u32string WordIds::ids(const std::vector<std::u32string_view>& words) {
    std::u32string out;
    out.reserve(words.size());
    for (std::u32string_view w : words) {
        out += ids_.try_emplace(w, char32_t(ids_.size())).first->second;
    }
    return out;
}

std::vector<std::u32string_view> split_spaces(std::u32string_view joined) {
    std::vector<std::u32string_view> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= joined.size(); ++i) {
        if (i == joined.size() || joined[i] == U' ') {
            if (i > start) out.push_back(joined.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

}  // namespace tfm
