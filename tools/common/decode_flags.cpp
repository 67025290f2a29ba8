#include "decode_flags.hpp"

#include <algorithm>

#include "checks.hpp"
#include "shared_options.hpp"
#include "tfm/decode/generation_settings.hpp"
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
    add_batch_options(app, f.batch, f.window);
    add_output_ids_flag(app, f.ids);
    app.add_option("--format", f.format,
                   "Output format: text (default) or jsonl, one JSON object per line with the translation, ids, pieces, score, "
                   "log-probability, each token's log-probability, and the n-best list")
        ->check(CLI::IsMember({"text", "jsonl"}));
    add_threads_option(app, f.threads);
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
    if (f.replace_unk && f.ids) throw UsageError("--replace-unk writes text; --output-ids writes ids");
    return o;
}

void apply_generation(DecodeOptions& o, const DecodeFlags& f, const GenerationConfig& g) {
    tfm::apply_generation(o, g, {f.given("--beam"), f.given("--length-penalty") || f.given("--length-penalty-type"),
                                 f.given("--max-length"), f.given("--min-length")});
}

OutputFormat DecodeFlags::output_format() const {
    OutputFormat o;
    o.jsonl = format == "jsonl";
    o.n_best = n_best;
    o.scores = scores;
    o.ids = ids;
    o.replace_unk = replace_unk;
    o.alignment = alignment.mode;
    return o;
}

std::size_t read_ahead(const DecodeFlags& f) { return read_ahead(f.window, f.batch); }

}  // namespace tfm::tool
