#include "decode_flags.hpp"

#include <algorithm>
#include <cstdio>

#include "checks.hpp"
#include "tfm/base/error.hpp"

namespace tfm::tool {

void add_decode_flags(CLI::App& app, DecodeFlags& f) {
    f.app = &app;
    app.add_option("-b,--beam", f.beam, "Beam size (default 4, the paper's; 1: greedy)")->check(in_range(1, 1024));
    app.add_option("--n-best", f.n_best, "Print the K best: 'index ||| text ||| score' lines (K <= beam)")
        ->check(in_range(1, 1024));
    app.add_flag("--scores", f.scores, "Prefix each line with its score (log-probability / length penalty) and a tab");
    app.add_option("--length-penalty", f.alpha, "Length penalty alpha (default 0.6)")->check(in_range(0, 10));
    app.add_option("--length-penalty-type", f.penalty, "gnmt: ((5+len)/6)^alpha (default), power: len^alpha, none")
        ->check(CLI::IsMember({"gnmt", "power", "none"}));
    app.add_option("--max-length-a", f.max_len_a, "Output limit = a * source length + b (default a = 1)")
        ->check(in_range(0, 1000));
    app.add_option("--max-length-b", f.max_len_b, "Output limit = a * source length + b (default b = 50)")
        ->check(in_range(0, kMaxLength));
    app.add_option("--max-length", f.max_len, "At most this many output tokens (default: no cap but the model's)")
        ->check(in_range(1, kMaxLength));
    app.add_option("--min-length", f.min_len, "No eos before this many tokens (default 0)")->check(in_range(0, kMaxLength));
    app.add_option("--batch-size", f.batch, "Sentences per batch (default 32)")->check(in_range(1, kMaxBatch));
    app.add_option("--window", f.window, "Sentences read ahead and sorted by length (default 8 x batch size)")
        ->check(in_range(1, kMaxWindow));
    app.add_flag("--ids", f.ids, "Print token ids instead of text");
    app.add_option("--threads", f.threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(in_range(1, kMaxThreads));
}

DecodeOptions decode_options(const DecodeFlags& f) {
    if (f.n_best > f.beam)
        throw UsageError("--n-best " + std::to_string(f.n_best) + " needs a beam at least as large (--beam " +
                         std::to_string(f.beam) + ")");
    if (f.max_len_a == 0 && f.max_len_b == 0)
        throw UsageError("--max-length-a 0 with --max-length-b 0 leaves no room for any output token");
    if (f.min_len > 0 && f.max_len > 0 && f.min_len > f.max_len)
        throw UsageError("--min-length " + std::to_string(f.min_len) + " is more than --max-length " +
                         std::to_string(f.max_len));
    DecodeOptions o;
    o.search.beam = f.beam;
    o.search.n_best = f.n_best;
    o.search.alpha = f.alpha;
    o.search.min_len = f.min_len;
    o.search.penalty = parse_length_penalty(f.penalty);
    o.max_len_a = f.max_len_a;
    o.max_len_b = f.max_len_b;
    o.max_len = f.max_len;
    o.batch_size = f.batch;
    return o;
}

void apply_generation(DecodeOptions& o, const DecodeFlags& f, const GenerationConfig& g) {
    if (!g.present()) return;
    if (g.num_beams && !f.given("--beam")) o.search.beam = std::max(*g.num_beams, o.search.n_best);
    if (!f.given("--length-penalty") && !f.given("--length-penalty-type")) {
        o.search.penalty = LengthPenalty::Power;
        o.search.alpha = g.length_penalty.value_or(1.0);
    }
    if (g.max_length && !f.given("--max-length")) o.max_len = std::max<std::size_t>(*g.max_length, 2) - 1;
    if (g.min_length && !f.given("--min-length")) o.search.min_len = *g.min_length > 0 ? *g.min_length - 1 : 0;
    if (o.max_len && o.search.min_len > o.max_len) o.search.min_len = o.max_len;
    o.search.bad_words = g.bad_words_ids;
    if (g.forced_eos_token_id) o.search.eos_forced_at = o.max_len;  // HF: at max_length
}

std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const DecodeFlags& f) {
    auto text = [&](const Hypothesis& h) {
        if (!f.ids) return tok.decode(h.ids);
        std::string s;
        for (std::size_t i = 0; i < h.ids.size(); ++i) s += (i ? " " : "") + std::to_string(h.ids[i]);
        return s;
    };
    auto score = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6f", v);
        return std::string(buf);
    };
    std::string out;
    if (f.n_best > 1) {
        for (const Hypothesis& h : hyps) out += std::to_string(index) + " ||| " + text(h) + " ||| " + score(h.score) + "\n";
        return out;
    }
    const Hypothesis& best = hyps.front();
    if (f.scores) out += score(best.score) + "\t";
    return out + text(best) + "\n";
}

}  // namespace tfm::tool
