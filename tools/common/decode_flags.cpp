#include "decode_flags.hpp"

#include <algorithm>
#include <cstdio>

#include "checks.hpp"
#include "tfm/decode/alignment.hpp"
#include "tfm/io/json.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm::tool {

void add_alignment_flags(CLI::App& app, AlignmentFlags& f) {
    f.app = &app;
    app.add_option("--alignment", f.mode,
                   "hard: 'source-target' token index pairs (Pharaoh, 0-based, eos left out) after ' ||| '; soft: each "
                   "target token's attention over the source tokens")
        ->check(CLI::IsMember({"hard", "soft"}));
    app.add_option("--alignment-layer", f.layer,
                   "Decoder layer whose encoder-decoder attention aligns: 0-based, negative from the last (default -1)")
        ->check(in_range(-1024, 1023));
    app.add_option("--alignment-heads", f.heads, "Average that layer's first N heads (default 0: all)")
        ->check(in_range(0, kMaxDim));
}

std::optional<DecodeOptions::Attention> AlignmentFlags::attention(bool needed) const {
    if (!mode.empty() || needed) return DecodeOptions::Attention{layer, heads};
    if (app && (app->count("--alignment-layer") || app->count("--alignment-heads")))
        throw UsageError("--alignment-layer and --alignment-heads choose the attention of --alignment (or --replace-unk)");
    return std::nullopt;
}

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
    app.add_option("--max-length,--max-decoding-length", f.max_len,
                   "At most this many output tokens, eos included (default: no cap but the model's)")
        ->check(in_range(1, kMaxLength));
    app.add_option("--min-length,--min-decoding-length", f.min_len, "No eos before this many tokens (default 0)")->check(in_range(0, kMaxLength));
    app.add_option("--batch-size", f.batch, "Sentences per batch (default 32)")->check(in_range(1, kMaxBatch));
    app.add_option("--window", f.window, "Sentences read ahead and sorted by length (default 8 x batch size, or a batch per thread if more)")
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
    add_alignment_flags(app, f.alignment);
    app.add_flag("--replace-unk", f.replace_unk,
                 "Write each generated <unk> as the source token it attends to most (as the source spells it)");
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
    o.attention = f.alignment.attention(f.replace_unk);
    if (f.replace_unk && f.ids) throw UsageError("--replace-unk writes text; --ids writes ids");
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

std::vector<std::string> AlignedLines::next(std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!lines_->next(out[i]))
            throw Error(path_ + ": ends after line " + std::to_string(read_) + ", before the input does (" + what_ +
                        " file: a line per input line)");
        ++read_;
    }
    return out;
}

void AlignedLines::finish() {
    std::string line;
    if (lines_->next(line)) throw Error(path_ + ": more lines than the input's " + std::to_string(read_));
}

std::vector<std::vector<std::int64_t>> PrefixReader::next(std::size_t n) {
    std::vector<std::vector<std::int64_t>> out;
    const std::size_t first = lines_.lines_read();
    const auto lines = lines_.next(n);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string where = lines_.path() + ": line " + std::to_string(first + i + 1);
        std::vector<std::int64_t> ids = tokenizer_.encode_target(lines[i]);
        ids.pop_back();  // eos: the output goes on after the prefix
        for (std::int64_t id : ids)
            if (id == config_.pad_id) throw Error(where + ": the prefix holds the pad id");
        if (ids.size() + 1 > config_.max_positions)
            throw Error(where + ": a prefix of " + std::to_string(ids.size()) + " tokens leaves no room in the model's " +
                        std::to_string(config_.max_positions) + " positions");
        out.push_back(std::move(ids));
    }
    return out;
}

namespace {

std::string number(const char* fmt, double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

// The hypothesis's text (or ids), <unk>s replaced from the source with --replace-unk.
std::string hypothesis_text(const Hypothesis& h, const Tokenizer& tok, const DecodeFlags& f,
                            const std::vector<TokenSpelling>* source) {
    if (f.ids) {
        std::string s;
        for (std::size_t i = 0; i < h.ids.size(); ++i) s += (i ? " " : "") + std::to_string(h.ids[i]);
        return s;
    }
    if (!f.replace_unk || !source) return tok.decode(h.ids);
    const std::vector<std::size_t> attended = attended_sources(h);
    return tok.decode(h.ids, [&](std::size_t i) {
        return i < attended.size() && attended[i] < source->size() ? (*source)[attended[i]] : TokenSpelling{};
    });
}

}  // namespace

std::string alignment_text(const std::vector<std::vector<float>>& rows, std::size_t tokens, const std::string& mode) {
    std::string s;
    if (mode == "hard") {
        const std::vector<std::size_t> attended = attended_sources(rows, tokens);
        for (std::size_t t = 0; t < attended.size(); ++t)
            s += (t ? " " : "") + std::to_string(attended[t]) + "-" + std::to_string(t);
        return s;
    }
    for (std::size_t t = 0; t < rows.size(); ++t) {
        if (t) s += ' ';
        for (std::size_t j = 0; j < rows[t].size(); ++j) s += (j ? "," : "") + number("%.6g", rows[t][j]);
    }
    return s;
}

namespace {

Json alignment_json(const Hypothesis& h, const DecodeFlags& f) {
    Json a = Json::array();
    if (f.alignment.mode == "hard") {
        const std::vector<std::size_t> attended = attended_sources(h);
        for (std::size_t t = 0; t < attended.size(); ++t) a.push_back({attended[t], t});
    } else {
        for (const auto& row : h.attention) a.push_back(row);
    }
    return a;
}

Json hypothesis_json(const Hypothesis& h, const Tokenizer& tok, const DecodeFlags& f,
                     const std::vector<TokenSpelling>* source) {
    Json j = Json::object();
    j["translation"] = hypothesis_text(h, tok, f, source);
    j["score"] = h.score;
    j["logprob"] = h.logprob;
    j["finished"] = h.finished;
    j["ids"] = h.ids;
    Json pieces = Json::array();
    for (std::int64_t id : h.ids) pieces.push_back(tok.target_piece(id));
    j["tokens"] = std::move(pieces);
    j["token_logprobs"] = h.token_logprobs;
    if (!f.alignment.mode.empty()) j["alignment"] = alignment_json(h, f);
    return j;
}

}  // namespace

std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const DecodeFlags& f, const std::vector<TokenSpelling>* source) {
    if (f.format == "jsonl") {
        Json j = hypothesis_json(hyps.front(), tok, f, source);
        j["line"] = index + 1;
        if (f.n_best > 1) {
            Json list = Json::array();
            for (const Hypothesis& h : hyps) list.push_back(hypothesis_json(h, tok, f, source));
            j["n_best"] = std::move(list);
        }
        return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    }
    auto text = [&](const Hypothesis& h) {
        std::string t = hypothesis_text(h, tok, f, source);
        return f.alignment.mode.empty() ? t : t + " ||| " + alignment_text(h.attention, h.ids.size(), f.alignment.mode);
    };
    std::string out;
    if (f.n_best > 1) {
        for (const Hypothesis& h : hyps)
            out += std::to_string(index) + " ||| " + text(h) + " ||| F0= " + number("%.6f", h.logprob) +
                   " WordPenalty= " + (h.ids.empty() ? "0" : "-" + std::to_string(h.ids.size())) + " ||| " + number("%.6f", h.score) + "\n";
        return out;
    }
    const Hypothesis& best = hyps.front();
    if (f.scores) out += number("%.6f", best.score) + "\t";
    return out + text(best) + "\n";
}

std::size_t read_ahead(const DecodeFlags& f) {
    return f.window ? f.window : std::max<std::size_t>(8, std::size_t(num_threads())) * f.batch;
}

}  // namespace tfm::tool
