#include "tfm/decode/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tfm/base/error.hpp"
#include "tfm/base/random.hpp"

namespace tfm {

LengthPenalty parse_length_penalty(const std::string& name) {
    if (name == "none") return LengthPenalty::None;
    if (name == "gnmt") return LengthPenalty::Gnmt;
    if (name == "power") return LengthPenalty::Power;
    throw UsageError("unknown length penalty '" + name + "' (none, gnmt, power)");
}

double length_penalty(LengthPenalty kind, double alpha, std::size_t len) {
    switch (kind) {
        case LengthPenalty::None: return 1.0;
        case LengthPenalty::Gnmt: return std::pow((5.0 + double(len)) / 6.0, alpha);
        case LengthPenalty::Power: return std::pow(double(std::max<std::size_t>(len, 1)), alpha);
    }
    return 1.0;
}

void StepFunction::attention(std::size_t, std::vector<float>&) const {
    throw Error("search: this step function gives no attention");
}

namespace {

// A step's log-probabilities [n,V] hold no NaN: a model whose activations overflow float32
// (finite but absurd weights) is an error, never a hypothesis of pad ids with a NaN score.
void check_step(const std::vector<float>& lp, std::size_t step) {
    int nan = 0;
    for (float x : lp) nan |= x != x;  // one vectorised pass
    if (nan)
        throw Error("the model's log-probabilities are NaN at decoding step " + std::to_string(step + 1) +
                    ": its activations overflow float32 (are its weights sane?)");
}

void check(std::size_t batch, const SearchOptions& opt) {
    if (opt.max_len.size() != batch)
        throw Error("search: " + std::to_string(opt.max_len.size()) + " length limits for " + std::to_string(batch) +
                    " sentences");
    if (opt.beam == 0 || opt.n_best == 0 || opt.n_best > opt.beam)
        throw UsageError("n-best (" + std::to_string(opt.n_best) + ") must be between 1 and the beam size (" +
                         std::to_string(opt.beam) + ")");
}

// What a hypothesis carries from step to step: its tokens, their log-probabilities and (when
// asked) attention.
struct Path {
    std::vector<std::int64_t> ids;
    std::vector<float> lps;                   // per token
    std::vector<std::vector<float>> attention;  // per token, with SearchOptions::attention
    double logp = 0;

    // This path one token longer: token with its log-probability, and the attention of row
    // `row` of the step that chose it.
    void extend(std::int64_t token, float lp, const StepFunction& f, std::size_t row, const SearchOptions& opt) {
        if (token != opt.eos_id) ids.push_back(token);
        lps.push_back(lp);
        logp += lp;
        if (opt.attention) f.attention(row, attention.emplace_back());
    }
};

Hypothesis finish(Path p, bool eos, const SearchOptions& opt) {
    Hypothesis h;
    h.ids = std::move(p.ids);
    h.token_logprobs = std::move(p.lps);
    h.attention = std::move(p.attention);
    h.logprob = p.logp;
    h.finished = eos;
    h.score = h.logprob / length_penalty(opt.penalty, opt.alpha, h.ids.size() + (eos ? 1 : 0));
    return h;
}

// The prefix sentence b must start with (null: none).
const std::vector<std::int64_t>* prefix_of(const SearchOptions& opt, std::size_t b) {
    return b < opt.prefixes.size() && !opt.prefixes[b].empty() ? &opt.prefixes[b] : nullptr;
}

// What a hypothesis `ids` of sentence b may do next: only its prefix's next token while in the
// prefix (kept finite: a forced token may be one the model rules out); then not eos while it is
// shorter than min_len, not the last token of a bad-words sequence whose other tokens it ends
// with, and nothing but eos at the position where eos is forced.
void block_tokens(float* logprobs, std::size_t vocab, const std::vector<std::int64_t>& ids, std::size_t b,
                  const SearchOptions& opt) {
    constexpr float kNever = -std::numeric_limits<float>::infinity();
    auto force = [&](std::int64_t token) {
        const float keep = std::max(logprobs[token], -1e30f);
        std::fill(logprobs, logprobs + vocab, kNever);
        logprobs[token] = keep;
    };
    const std::int64_t first = b < opt.forced_first.size() ? opt.forced_first[b] : -1;
    const bool forced = first >= 0 && std::size_t(first) < vocab;
    if (forced && ids.empty()) {
        std::fill(logprobs, logprobs + vocab, kNever);
        logprobs[first] = 0.0f;
        return;
    }
    const std::size_t in_prefix = ids.size() - (forced ? 1 : 0);
    if (const auto* prefix = prefix_of(opt, b); prefix && in_prefix < prefix->size()) {
        const std::int64_t token = (*prefix)[in_prefix];
        if (token >= 0 && std::size_t(token) < vocab) return force(token);
    }
    if (ids.size() + 1 == opt.eos_forced_at && opt.eos_id >= 0 && std::size_t(opt.eos_id) < vocab)
        return force(opt.eos_id);
    if (ids.size() < opt.min_len && opt.eos_id >= 0) logprobs[opt.eos_id] = kNever;
    for (const auto& seq : opt.bad_words) {
        if (seq.empty() || seq.back() < 0 || std::size_t(seq.back()) >= vocab || seq.size() - 1 > ids.size()) continue;
        if (std::equal(seq.begin(), seq.end() - 1, ids.end() - long(seq.size() - 1))) logprobs[seq.back()] = kNever;
    }
}

// The indices of the k largest entries of row [v], largest first, ties to the lower index (what
// a partial sort by (value desc, index asc) gives), in one pass: a decoding step looks at every
// row of the vocabulary, and k (twice the beam) is small.
void best_k(const float* row, std::size_t v, std::size_t k, std::vector<std::size_t>& best) {
    best.clear();
    constexpr std::size_t kChunk = 64;  // once k are kept, a chunk no better than the worst is skipped whole
    auto beats = [](const float* x, float worst) {  // any of x[0..kChunk) > worst (a vector compare)
        int any = 0;
        for (std::size_t l = 0; l < kChunk; ++l) any |= x[l] > worst;
        return any != 0;
    };
    for (std::size_t i = 0; i < v; ++i) {
        if (i % kChunk == 0 && k > 0 && best.size() == k && i + kChunk <= v && !beats(row + i, row[best.back()])) {
            i += kChunk - 1;
            continue;
        }
        const float x = row[i];
        std::size_t j;
        if (best.size() < k) {
            j = best.size();
            best.push_back(i);
        } else if (k > 0 && x > row[best.back()]) {
            j = k - 1;  // the last (worst) leaves
        } else {
            continue;  // no better than the worst kept: an equal value keeps its lower index ahead
        }
        while (j > 0 && row[best[j - 1]] < x) {
            best[j] = best[j - 1];
            --j;
        }
        best[j] = i;
    }
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A token drawn from logprobs [V] (blocked tokens are -inf) under the sampling options.
std::int64_t draw(const float* logprobs, std::size_t vocab, const SamplingOptions& s, Rng& rng,
                  std::vector<std::pair<float, std::int64_t>>& cand, std::vector<double>& w) {
    cand.clear();
    for (std::size_t i = 0; i < vocab; ++i)
        if (logprobs[i] != -std::numeric_limits<float>::infinity()) cand.push_back({logprobs[i], std::int64_t(i)});
    if (cand.empty()) return -1;
    auto better = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
    if (s.top_k > 0 && s.top_k < cand.size()) {
        std::partial_sort(cand.begin(), cand.begin() + long(s.top_k), cand.end(), better);
        cand.resize(s.top_k);
    } else if (s.top_p < 1.0) {
        std::sort(cand.begin(), cand.end(), better);
    }
    const double top = std::max_element(cand.begin(), cand.end(), [](const auto& a, const auto& b) { return a.first < b.first; })->first;
    w.resize(cand.size());
    double total = 0;
    for (std::size_t i = 0; i < cand.size(); ++i) total += w[i] = std::exp((double(cand[i].first) - top) / s.temperature);
    if (s.top_p < 1.0) {  // cand is sorted: keep the smallest head whose probability reaches top_p
        double cum = 0;
        std::size_t keep = 0;
        while (keep < cand.size() && cum < s.top_p * total) cum += w[keep++];
        w.resize(keep);
        total = cum;
    }
    const double u = double(rng.next() >> 11) * 0x1.0p-53 * total;
    double acc = 0;
    for (std::size_t i = 0; i < w.size(); ++i)
        if ((acc += w[i]) > u) return cand[i].second;
    return cand[w.size() - 1].second;
}

// Whether sentence b, with `finished` (at least beam of them), is done after a step whose best
// candidate has log-probability best and `len` tokens (HF's BeamHypotheses.is_done).
bool beam_done(const std::vector<Hypothesis>& finished, double best, std::size_t len, std::size_t b,
               const SearchOptions& opt) {
    if (opt.early_stopping == EarlyStopping::True) return true;
    std::vector<double> scores;
    for (const Hypothesis& h : finished) scores.push_back(h.score);
    // The worst of the beam best: HF keeps only those.
    std::nth_element(scores.begin(), scores.begin() + long(opt.beam - 1), scores.end(), std::greater<>());
    const double worst = scores[opt.beam - 1];
    if (opt.early_stopping == EarlyStopping::Never && opt.alpha > 0) len = std::max(len, opt.max_len[b]);
    return worst >= best / length_penalty(opt.penalty, opt.alpha, len);
}

// Best first; ties by fewer tokens, then by token ids, so the order is deterministic.
void sort_hypotheses(std::vector<Hypothesis>& hs) {
    std::stable_sort(hs.begin(), hs.end(), [](const Hypothesis& a, const Hypothesis& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.ids < b.ids;
    });
}

// Greedy search and sampling alike: each row extends its hypothesis by one token a step, the
// token choose(logprobs [V], the row's generator) picks (-1: none is allowed), until eos or the
// sentence's length limit; finished rows leave the step function's batch. Each sentence has
// `copies` rows; copy k of sentence b draws from a generator seeded by (seed, id of b, k).
template <class Choose>
std::vector<std::vector<Hypothesis>> token_by_token(StepFunction& f, std::size_t batch, std::size_t copies,
                                                    std::uint64_t seed, const SearchOptions& opt, Choose&& choose) {
    const std::size_t v = f.vocab();
    struct Live {
        std::size_t sentence;
        Path path;
        Rng rng;
    };
    std::vector<Live> live;
    std::vector<std::size_t> rows;
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t k = 0; k < copies; ++k) {
            const std::uint64_t id = b < opt.sample_ids.size() ? opt.sample_ids[b] : b;
            live.push_back({b, {}, Rng(mix(mix(mix(seed) ^ id) ^ k))});
            rows.push_back(b);
        }
    if (copies > 1) f.select(rows);
    std::vector<std::vector<Hypothesis>> out(batch);
    // Keeps the rows for which keep(row) holds, in the step function too.
    auto compact = [&](auto&& keep) {
        std::vector<Live> next;
        std::vector<std::size_t> kept;
        for (std::size_t r = 0; r < live.size(); ++r)
            if (keep(r)) {
                next.push_back(std::move(live[r]));
                kept.push_back(r);
            }
        if (kept.size() != live.size() && !kept.empty()) f.select(kept);
        live = std::move(next);
    };
    std::vector<float> lp;
    std::vector<bool> ended;
    for (std::size_t step = 0;; ++step) {
        compact([&](std::size_t r) {  // at the length limit: final without eos
            if (opt.max_len[live[r].sentence] > step) return true;
            out[live[r].sentence].push_back(finish(std::move(live[r].path), false, opt));
            return false;
        });
        if (live.empty()) break;
        const std::size_t n = live.size();
        std::vector<std::int64_t> tokens;
        for (const Live& h : live) tokens.push_back(h.path.ids.empty() ? opt.start_id : h.path.ids.back());
        lp.resize(n * v);
        f.step(tokens, mat(lp.data(), n, v));
        check_step(lp, step);
        ended.assign(n, false);
        for (std::size_t r = 0; r < n; ++r) {
            float* row = lp.data() + r * v;
            Live& h = live[r];
            block_tokens(row, v, h.path.ids, h.sentence, opt);
            const std::int64_t token = choose(static_cast<const float*>(row), h.rng);
            if (token >= 0) h.path.extend(token, row[token], f, r, opt);
            if (token < 0 || token == opt.eos_id) {  // eos, or nothing left to choose
                out[h.sentence].push_back(finish(std::move(h.path), token >= 0, opt));
                ended[r] = true;
            }
        }
        compact([&](std::size_t r) { return !ended[r]; });  // finished rows leave the batch
    }
    for (auto& hs : out) sort_hypotheses(hs);
    return out;
}

}  // namespace

std::vector<std::vector<Hypothesis>> greedy_search(StepFunction& f, std::size_t batch, const SearchOptions& opt) {
    check(batch, opt);
    const std::size_t v = f.vocab();
    return token_by_token(f, batch, 1, 0, opt, [v](const float* row, Rng&) -> std::int64_t {
        const auto best = std::max_element(row, row + v) - row;
        return row[best] == -std::numeric_limits<float>::infinity() ? -1 : std::int64_t(best);
    });
}

std::vector<std::vector<Hypothesis>> beam_search(StepFunction& f, std::size_t batch, const SearchOptions& opt) {
    check(batch, opt);
    const std::size_t v = f.vocab(), beam = opt.beam;
    struct Live {
        std::size_t sentence;
        Path path;
    };
    std::vector<Live> live;  // one per row of f
    std::vector<std::vector<Hypothesis>> finished(batch);
    std::vector<bool> done(batch, false);
    std::vector<std::size_t> rows;
    for (std::size_t b = 0; b < batch; ++b) {
        if (opt.max_len[b] == 0) {  // no token allowed: empty at once
            finished[b].push_back(finish({}, false, opt));
            done[b] = true;
            continue;
        }
        live.push_back({b, {}});
        rows.push_back(b);
    }
    if (live.size() != batch && !live.empty()) f.select(rows);
    std::vector<float> lp;
    for (std::size_t step = 0; !live.empty(); ++step) {
        std::vector<std::int64_t> tokens;
        for (const Live& h : live) tokens.push_back(h.path.ids.empty() ? opt.start_id : h.path.ids.back());
        lp.resize(live.size() * v);
        f.step(tokens, mat(lp.data(), live.size(), v));
        check_step(lp, step);
        // Candidates per sentence: the 2*beam best continuations of each live hypothesis.
        struct Cand {
            double logp;
            std::size_t row;
            std::int64_t token;
            float lp;  // the token's own
        };
        std::vector<std::vector<Cand>> cands(batch);
        std::vector<std::size_t> idx;
        const std::size_t k = std::min(v, 2 * beam);
        for (std::size_t r = 0; r < live.size(); ++r) {
            float* row = lp.data() + r * v;
            block_tokens(row, v, live[r].path.ids, live[r].sentence, opt);
            best_k(row, v, k, idx);
            for (std::size_t i = 0; i < idx.size() && row[idx[i]] != -std::numeric_limits<float>::infinity(); ++i)
                cands[live[r].sentence].push_back({live[r].path.logp + row[idx[i]], r, std::int64_t(idx[i]), row[idx[i]]});
        }
        std::vector<Live> next;
        std::vector<std::size_t> parents;
        for (std::size_t b = 0; b < batch; ++b) {
            if (done[b] || cands[b].empty()) continue;
            auto& cb = cands[b];
            std::stable_sort(cb.begin(), cb.end(), [](const Cand& x, const Cand& y) {
                if (x.logp != y.logp) return x.logp > y.logp;
                if (x.row != y.row) return x.row < y.row;
                return x.token < y.token;
            });
            std::size_t kept = 0;
            for (std::size_t i = 0; i < cb.size() && kept < beam; ++i) {
                const Cand& c = cb[i];
                if (c.token == opt.eos_id && i >= beam) continue;
                Path p = live[c.row].path;
                p.extend(c.token, c.lp, f, c.row, opt);
                if (c.token == opt.eos_id) {
                    finished[b].push_back(finish(std::move(p), true, opt));
                    continue;
                }
                next.push_back({b, std::move(p)});
                parents.push_back(c.row);
                ++kept;
            }
            if (finished[b].size() >= beam) done[b] = beam_done(finished[b], cb.front().logp,
                                                                live[cb.front().row].path.ids.size() + 1, b, opt);
        }
        // Hypotheses of finished sentences leave; those at the length limit are final.
        std::vector<Live> keep;
        std::vector<std::size_t> keep_parents;
        for (std::size_t i = 0; i < next.size(); ++i) {
            std::size_t b = next[i].sentence;
            if (done[b]) continue;
            if (next[i].path.ids.size() >= opt.max_len[b]) {
                finished[b].push_back(finish(std::move(next[i].path), false, opt));
                continue;
            }
            keep.push_back(std::move(next[i]));
            keep_parents.push_back(parents[i]);
        }
        for (std::size_t b = 0; b < batch; ++b) {
            bool any = std::any_of(keep.begin(), keep.end(), [&](const Live& h) { return h.sentence == b; });
            if (!any) done[b] = true;
        }
        live = std::move(keep);
        if (!live.empty()) f.select(keep_parents);
    }
    std::vector<std::vector<Hypothesis>> out(batch);
    for (std::size_t b = 0; b < batch; ++b) {
        sort_hypotheses(finished[b]);
        finished[b].resize(std::min(finished[b].size(), opt.n_best));
        out[b] = std::move(finished[b]);
    }
    return out;
}

std::vector<std::vector<Hypothesis>> sample_search(StepFunction& f, std::size_t batch, const SearchOptions& opt) {
    if (!opt.sampling) throw Error("sample_search: no sampling options");
    const SamplingOptions& so = *opt.sampling;
    if (!(so.temperature > 0) || !(so.top_p > 0 && so.top_p <= 1))
        throw UsageError("sampling needs a temperature > 0 and top-p in (0, 1]");
    if (opt.max_len.size() != batch || opt.n_best == 0) throw Error("search: bad options for sampling");
    const std::size_t v = f.vocab();
    std::vector<std::pair<float, std::int64_t>> cand;
    std::vector<double> weights;
    return token_by_token(f, batch, opt.n_best, so.seed, opt,
                          [&](const float* row, Rng& rng) { return draw(row, v, so, rng, cand, weights); });
}

std::vector<std::vector<Hypothesis>> search(StepFunction& f, std::size_t batch, const SearchOptions& opt) {
    if (opt.sampling) return sample_search(f, batch, opt);
    return opt.beam == 1 ? greedy_search(f, batch, opt) : beam_search(f, batch, opt);
}

}  // namespace tfm
