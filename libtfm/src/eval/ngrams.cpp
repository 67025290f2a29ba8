#include "tfm/eval/ngrams.hpp"

#include <algorithm>

namespace tfm {

namespace {

std::size_t hash_key(NgramKey k) {
    const std::uint64_t lo = std::uint64_t(k), hi = std::uint64_t(k >> 64);
    std::uint64_t h = (lo ^ (hi * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return std::size_t(h ^ (h >> 31));
}

}  // namespace

void NgramCounts::reserve(std::size_t distinct) {
    std::size_t capacity = 16;
    while (capacity < 2 * distinct) capacity *= 2;
    keys_.assign(capacity, 0);
    counts_.assign(capacity, 0);
}

std::uint32_t& NgramCounts::slot(NgramKey key) {
    const std::size_t mask = keys_.size() - 1;
    std::size_t h = hash_key(key) & mask;
    while (counts_[h] != 0 && keys_[h] != key) h = (h + 1) & mask;
    if (counts_[h] == 0) keys_[h] = key, ++distinct_;
    return counts_[h];
}

std::uint32_t NgramCounts::count(NgramKey key) const {
    if (keys_.empty()) return 0;
    const std::size_t mask = keys_.size() - 1;
    for (std::size_t h = hash_key(key) & mask;; h = (h + 1) & mask) {
        if (counts_[h] == 0) return 0;
        if (keys_[h] == key) return counts_[h];
    }
}

NgramCounts count_ngrams(std::u32string_view seq, std::size_t n, unsigned bits) {
    NgramCounts out;
    if (n == 0 || seq.size() < n) return out;
    const std::size_t count = seq.size() - n + 1;
    out.total_ = count;
    if (n * bits <= 128) {
        out.reserve(count);
        NgramKey key = 0;
        const NgramKey mask = n * bits == 128 ? ~NgramKey(0) : (NgramKey(1) << (n * bits)) - 1;
        for (std::size_t i = 0; i < seq.size(); ++i) {  // a rolling key: shift in the next symbol
            key = ((key << bits) | NgramKey(seq[i])) & mask;
            if (i + 1 >= n) ++out.slot(key);
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) ++out.views_[seq.substr(i, n)];
    }
    return out;
}

std::size_t clipped_matches(const NgramCounts& hyp, const NgramCounts& ref) {
    std::size_t m = 0;
    for (std::size_t i = 0; i < hyp.keys_.size(); ++i)
        if (hyp.counts_[i] != 0) m += std::min(hyp.counts_[i], ref.count(hyp.keys_[i]));
    for (const auto& [gram, c] : hyp.views_) {
        const auto it = ref.views_.find(gram);
        if (it != ref.views_.end()) m += std::min(c, it->second);
    }
    return m;
}

NgramCounts max_counts(const NgramCounts& a, const NgramCounts& b) {
    NgramCounts out;
    out.reserve(a.distinct_ + b.distinct_);
    for (const NgramCounts* x : {&a, &b})
        for (std::size_t i = 0; i < x->keys_.size(); ++i)
            if (x->counts_[i] != 0) {
                std::uint32_t& c = out.slot(x->keys_[i]);
                c = std::max(c, x->counts_[i]);
            }
    out.views_ = a.views_;
    for (const auto& [gram, c] : b.views_) out.views_[gram] = std::max(out.views_[gram], c);
    // The most n-grams any one of them holds (what max_counts' total means for BLEU is never
    // asked; chrF takes one reference at a time).
    out.total_ = std::max(a.total_, b.total_);
    return out;
}

std::u32string WordIds::ids(const std::vector<std::u32string_view>& words) {
    std::u32string out;
    out.reserve(words.size());
    for (std::u32string_view w : words) out += ids_.try_emplace(w, char32_t(ids_.size())).first->second;
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
