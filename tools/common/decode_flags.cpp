#include "decode_flags.hpp"

#include <algorithm>
#include <cstdio>

#include "checks.hpp"
#include "tfm/io/json.hpp"
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
    app.add_option("--format", f.format,
                   "text (default) or jsonl: one JSON object per line with the translation, ids, pieces, score, "
                   "log-probability, each token's log-probability, and the n-best list")
        ->check(CLI::IsMember({"text", "jsonl"}));
    app.add_option("--threads", f.threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(in_range(1, kMaxThreads));
    app.add_flag("--sample", f.sample, "Sample translations instead of searching; --n-best K gives K samples per line");
    app.add_option("--sampling-topk", f.sampling_topk, "Sample from the K most probable tokens only (0: all; implies --sample)")
        ->check(in_range(0, 1 << 24));
    app.add_option("--sampling-topp", f.sampling_topp,
                   "Sample from the fewest most probable tokens whose probability reaches P (implies --sample)")
        ->check(in_range(1e-9, 1));
    app.add_option("--temperature", f.temperature, "Sharpen (< 1) or flatten (> 1) the distribution sampled from (implies --sample)")
        ->check(in_range(1e-3, 1000));
    app.add_option("--seed", f.seed, "Seed of sampling (default 0): a line's samples depend on it and on the line's "
                                     "number only, not on batches or threads");
    app.add_option("--prefix-file", f.prefix_file,
                   "Target prefixes, one line per input line: each output starts with its prefix (empty line: none)");
}

DecodeOptions decode_options(const DecodeFlags& f) {
    const bool sampling = f.sample || f.given("--sampling-topk") || f.given("--sampling-topp") || f.given("--temperature");
    if (f.n_best > f.beam && !sampling)
        throw UsageError("--n-best " + std::to_string(f.n_best) + " needs a beam at least as large (--beam " +
                         std::to_string(f.beam) + ")");
    if (f.max_len_a == 0 && f.max_len_b == 0)
        throw UsageError("--max-length-a 0 with --max-length-b 0 leaves no room for any output token");
    if (f.min_len > 0 && f.max_len > 0 && f.min_len > f.max_len)
        throw UsageError("--min-length " + std::to_string(f.min_len) + " is more than --max-length " +
                         std::to_string(f.max_len));
    DecodeOptions o;
    if (sampling) {
        o.search.sampling = SamplingOptions{f.sampling_topk, f.sampling_topp, f.temperature, f.seed};
        if (f.given("--beam")) throw UsageError("--beam and sampling exclude each other (--n-best K gives K samples)");
    } else if (f.given("--seed")) {
        throw UsageError("--seed is for sampling (--sample, --sampling-topk, --sampling-topp, --temperature)");
    }
    o.search.beam = f.beam;
    o.search.n_best = f.n_best;
    o.search.alpha = f.alpha;
    o.search.min_len = f.min_len;
    o.search.penalty = parse_length_penalty(f.penalty);
    o.max_len_a = f.max_len_a;
    o.max_len_b = f.max_len_b;
    o.max_len = f.max_len;
    o.batch_size = f.batch;
    if (o.search.sampling) o.search.beam = std::max(o.search.beam, o.search.n_best);
    return o;
}

void apply_generation(DecodeOptions& o, const DecodeFlags& f, const GenerationConfig& g) {
    if (!g.present()) return;
    if (g.num_beams && !f.given("--beam") && !o.search.sampling) o.search.beam = std::max(*g.num_beams, o.search.n_best);
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

PrefixReader::PrefixReader(const std::string& path, const Tokenizer& tokenizer, const ModelConfig& config)
    : lines_(std::make_unique<LineReader>(path)), tokenizer_(tokenizer), config_(config), path_(path) {}

std::vector<std::vector<std::int64_t>> PrefixReader::next(std::size_t n) {
    std::vector<std::vector<std::int64_t>> out;
    std::string line;
    for (std::size_t i = 0; i < n; ++i) {
        if (!lines_->next(line))
            throw Error(path_ + ": ends after line " + std::to_string(read_) + ", before the input does");
        ++read_;
        std::vector<std::int64_t> ids = tokenizer_.encode_target(line);
        ids.pop_back();  // eos: the output goes on after the prefix
        for (std::int64_t id : ids)
            if (id == config_.pad_id) throw Error(path_ + ": line " + std::to_string(read_) + ": the prefix holds the pad id");
        if (ids.size() + 1 > config_.max_positions)
            throw Error(path_ + ": line " + std::to_string(read_) + ": a prefix of " + std::to_string(ids.size()) +
                        " tokens leaves no room in the model's " + std::to_string(config_.max_positions) + " positions");
        out.push_back(std::move(ids));
    }
    return out;
}

void PrefixReader::finish() {
    std::string line;
    if (lines_->next(line)) throw Error(path_ + ": more lines than the input's " + std::to_string(read_));
}

namespace {

Json hypothesis_json(const Hypothesis& h, const Tokenizer& tok) {
    Json j = Json::object();
    j["translation"] = tok.decode(h.ids);
    j["score"] = h.score;
    j["logprob"] = h.logprob;
    j["finished"] = h.finished;
    j["ids"] = h.ids;
    Json pieces = Json::array();
    for (std::int64_t id : h.ids) pieces.push_back(tok.target_piece(id));
    j["tokens"] = std::move(pieces);
    j["token_logprobs"] = h.token_logprobs;
    return j;
}

}  // namespace

std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const DecodeFlags& f) {
    if (f.format == "jsonl") {
        Json j = hypothesis_json(hyps.front(), tok);
        j["line"] = index + 1;
        if (f.n_best > 1) {
            Json list = Json::array();
            for (const Hypothesis& h : hyps) list.push_back(hypothesis_json(h, tok));
            j["n_best"] = std::move(list);
        }
        return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    }
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
