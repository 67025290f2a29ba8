#include "tfm/train/corpus.hpp"

#include <algorithm>
#include <numeric>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/base/random.hpp"

namespace tfm {

Corpus load_parallel(const std::string& src_path, const std::string& tgt_path, const Tokenizer& tok,
                     std::size_t max_len) {
    LineReader src(src_path), tgt(tgt_path);
    Corpus c;
    std::string a, b;
    for (;;) {
        const bool ha = src.next(a), hb = tgt.next(b);
        if (!ha && !hb) break;
        if (ha != hb) {
            std::size_t na = c.lines + (ha ? 1 : 0), nb = c.lines + (hb ? 1 : 0);
            while (ha && src.next(a)) ++na;
            while (hb && tgt.next(b)) ++nb;
            throw Error(src_path + " has " + std::to_string(na) + " lines but " + tgt_path + " has " +
                        std::to_string(nb) + ": the files must be line-aligned");
        }
        ++c.lines;
        // A line past what max_len tokens can spell is long without tokenizing it (whose cost
        // could grow faster than the line).
        if (a.size() > text_budget(max_len) || b.size() > text_budget(max_len)) {
            ++c.skipped_long;
            continue;
        }
        SentencePair p{tok.encode(a), tok.encode_target(b), b};
        p.tgt.pop_back();  // eos becomes the last label, not an input
        if (p.src.size() <= 1 || p.tgt.empty()) {
            ++c.skipped_empty;
            continue;
        }
        if (p.src.size() > max_len || p.tgt.size() + 1 > max_len) {
            ++c.skipped_long;
            continue;
        }
        c.pairs.push_back(std::move(p));
    }
    if (c.lines == 0) throw Error(src_path + " and " + tgt_path + " are empty");
    if (c.pairs.empty())
        throw Error(src_path + ", " + tgt_path + ": no usable sentence pair among " + std::to_string(c.lines) + " lines");
    return c;
}

namespace {

std::size_t pair_tokens(const SentencePair& p) { return std::max(p.src.size(), p.tgt.size() + 1); }

}  // namespace

std::vector<std::vector<std::size_t>> token_batches(const std::vector<SentencePair>& pairs, std::size_t max_tokens,
                                                    std::uint64_t seed) {
    std::vector<std::size_t> order(pairs.size());
    std::iota(order.begin(), order.end(), 0);
    auto len = [&](std::size_t i) { return pair_tokens(pairs[i]); };
    Rng rng(seed);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);  // ties in random order
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return len(a) < len(b); });
    std::vector<std::vector<std::size_t>> batches;
    std::vector<std::size_t> cur;
    std::size_t longest = 0;
    for (std::size_t i : order) {
        const std::size_t l = std::max(longest, len(i));
        if (!cur.empty() && l * (cur.size() + 1) > max_tokens) {
            batches.push_back(std::move(cur));
            cur.clear();
            longest = 0;
        }
        cur.push_back(i);
        longest = std::max(longest, len(i));
    }
    if (!cur.empty()) batches.push_back(std::move(cur));
    for (std::size_t i = batches.size(); i > 1; --i) std::swap(batches[i - 1], batches[rng.next() % i]);
    return batches;
}

std::vector<std::size_t> batch_part(const std::vector<SentencePair>& pairs, const std::vector<std::size_t>& batch,
                                    std::size_t part, std::size_t parts) {
    if (parts == 0 || part >= parts) throw UsageError("batch part " + std::to_string(part) + " of " + std::to_string(parts));
    std::size_t total = 0;
    for (std::size_t i : batch) total += pair_tokens(pairs[i]);
    // The first pair whose running count before it reaches k / parts of the total.
    const auto cut = [&](std::size_t k) {
        std::size_t j = 0, before = 0;
        while (j < batch.size() && before * parts < k * total) before += pair_tokens(pairs[batch[j++]]);
        return j;
    };
    const std::size_t first = cut(part), last = part + 1 == parts ? batch.size() : cut(part + 1);
    return {batch.begin() + std::ptrdiff_t(first), batch.begin() + std::ptrdiff_t(std::max(first, last))};
}

}  // namespace tfm
