// tfm-bench: measured costs, always next to this machine's own sgemm throughput.
#include <algorithm>
#include <cstdio>
#include <string>

#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/bench.hpp"
#include "tfm/bench_attention.hpp"
#include "tfm/bench_breakdown.hpp"
#include "tfm/bench_train.hpp"
#include "tfm/bench_translate.hpp"
#include "tfm/error.hpp"
#include "tfm/fit.hpp"
#include "tfm/plot.hpp"
#include "tfm/bench_layers.hpp"
#include "tfm/attention.hpp"
#include "tfm/gemm.hpp"
#include "tfm/io.hpp"
#include "tfm/parallel.hpp"
#include "tfm/table.hpp"

namespace {

using tfm::tool::in_range, tfm::tool::kMaxDim, tfm::tool::kMaxThreads, tfm::tool::option_range;

struct Common {
    std::string format = "table";
    int reps = 5, warmup = 1, threads = 0;
    std::size_t sgemm_n = 1024;
    tfm::TimingOptions timing() const { return {warmup, reps, 0.0}; }
};

void add_common(CLI::App* sub, Common& c) {
    sub->add_option("--format", c.format, "table (default), csv, json or markdown")
        ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
    sub->add_option("--reps", c.reps, "Timed repetitions per point (default 5)")->check(in_range(1, 1e6));
    sub->add_option("--warmup", c.warmup, "Untimed runs first (default 1)")->check(in_range(0, 1e6));
    sub->add_option("--threads", c.threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(in_range(1, kMaxThreads));
    sub->add_option("--sgemm-n", c.sgemm_n, "Size of the reference sgemm (default 1024)")->check(in_range(1, 16384));
}

// The header every run prints: the machine and its sgemm GFLOP/s measured in this run.
double print_header(const Common& c) {
    tfm::set_num_threads(c.threads);
    tfm::MachineInfo m = tfm::machine_info();
    double ref = tfm::sgemm_gflops(c.sgemm_n, c.timing());
    std::string prefix = c.format == "json" ? "" : "# ";
    if (c.format == "json") return ref;  // the JSON document carries the header itself
    std::printf("%smachine: %s, %u cores, %d threads, %s\n", prefix.c_str(), m.cpu.c_str(), m.cores,
                m.threads, m.blas.c_str());
    std::printf("%ssgemm n=%zu: %.1f GFLOP/s\n", prefix.c_str(), c.sgemm_n, ref);
    std::fflush(stdout);
    return ref;
}

tfm::Table machine_table(const Common& c, double ref) {
    tfm::MachineInfo m = tfm::machine_info();
    tfm::Table t({"cpu", "cores", "threads", "blas", "sgemm_n", "sgemm_gflops"});
    t.add({m.cpu, std::to_string(m.cores), std::to_string(m.threads), m.blas, std::to_string(c.sgemm_n),
           tfm::Table::num(ref, 1)});
    return t;
}

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos <= list.size();) {
        const std::size_t c = std::min(list.find(',', pos), list.size());
        out.push_back(list.substr(pos, c - pos));
        pos = c + 1;
    }
    return out;
}

// What a sweep reports besides its points: every repetition, fits, crossovers. Notes are
// the human lines ("# fit: ..."): after the table, on stderr for CSV (which stays one table),
// and as their tables in JSON.
struct Extras {
    std::vector<std::pair<std::string, tfm::Table>> tables;
    std::vector<std::string> notes;
    std::string text_plot;  // --plot -: after the notes (stderr with csv and json)
};

// One curve of a sweep for --plot, with its own power law drawn over the points it was fitted on.
void add_series(std::vector<tfm::PlotSeries>& plot, const std::string& name, const std::vector<double>& n,
                const std::vector<double>& seconds, double min_ms) {
    tfm::PlotSeries ps{name, n, seconds, {}, {}};
    std::vector<std::vector<double>> fx;
    std::vector<double> fy;
    for (std::size_t i = 0; i < n.size(); ++i)
        if (seconds[i] * 1e3 >= min_ms) fx.push_back({n[i]}), fy.push_back(seconds[i]);
    if (fx.size() >= 2) {
        try {
            const tfm::PowerFit f = tfm::fit_power_law(fx, fy);
            for (const auto& x : fx) ps.fit_x.push_back(x[0]), ps.fit_y.push_back(f.predict(x));
            char buf[32];
            std::snprintf(buf, sizeof buf, " (n^%.2f)", f.exponents[0]);
            ps.name += buf;
        } catch (const tfm::Error&) {  // n does not vary: no line
        }
    }
    plot.push_back(std::move(ps));
}

// --plot FILE: .svg or .png written now; "-" becomes the text plot of the output.
void write_plot(const std::string& path, const std::vector<tfm::PlotSeries>& series, const tfm::PlotOptions& opt,
                Extras& extra) {
    if (path.empty()) return;
    if (path == "-") {
        extra.text_plot = tfm::plot_text(series, opt);
        return;
    }
    const std::string bytes =
        path.size() > 4 && path.compare(path.size() - 4, 4, ".svg") == 0 ? tfm::plot_svg(series, opt)
                                                                          : tfm::encode_png(tfm::plot_image(series, opt));
    tfm::write_file_atomic(path, bytes);
}

// The --plot option of a sweep; the extension is checked before anything is measured.
void add_plot_option(CLI::App* sub, std::string& path) {
    sub->add_option("--plot", path, "Log-log plot of time against n with the fitted lines: FILE.svg, FILE.png, or - (text)")
        ->check([](const std::string& v) -> std::string {
            const auto ends = [&](const char* e) { return v.size() > 4 && v.compare(v.size() - 4, 4, e) == 0; };
            return v == "-" || ends(".svg") || ends(".png") ? "" : "--plot takes FILE.svg, FILE.png or -";
        });
}

void emit(const Common& c, double ref, const tfm::Table& t, const Extras& extra = {}) {
    tfm::Output out(1);
    if (c.format == "json") {
        std::vector<std::pair<std::string, tfm::Table>> all = {{"machine", machine_table(c, ref)}, {"points", t}};
        all.insert(all.end(), extra.tables.begin(), extra.tables.end());
        out.write(tfm::tables_to_json(all));
        std::fputs(extra.text_plot.c_str(), stderr);
        return;
    }
    std::string text = t.render(tfm::parse_table_format(c.format));
    for (const auto& n : extra.notes) {
        if (c.format == "csv") std::fprintf(stderr, "tfm-bench: %s\n", n.c_str());
        else text += "# " + n + "\n";
    }
    if (c.format == "csv") std::fputs(extra.text_plot.c_str(), stderr);
    else text += extra.text_plot;
    out.write(text);
}

// Every timed repetition of every point, for the JSON document.
void add_repetitions(tfm::Table& reps, const std::vector<std::string>& key, const tfm::Timing& t) {
    for (std::size_t r = 0; r < t.seconds.size(); ++r) {
        std::vector<std::string> row = key;
        row.push_back(std::to_string(r));
        row.push_back(tfm::Table::num(t.seconds[r], 9));
        reps.add(row);
    }
}

// The power law of median time against n and D over the points of at least min_ms, as a
// note and a row of the fits table.
void add_fit(Extras& extra, tfm::Table& fits, const std::string& what, const std::vector<std::vector<double>>& x,
             const std::vector<double>& seconds, double min_ms) {
    std::vector<std::vector<double>> fx;
    std::vector<double> fy;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (seconds[i] * 1e3 >= min_ms) fx.push_back(x[i]), fy.push_back(seconds[i]);
    const std::string label = what.empty() ? "fit" : "fit " + what;
    if (fx.size() < 3) {
        extra.notes.push_back(label + ": " + std::to_string(fx.size()) + " points with median >= " +
                              tfm::Table::num(min_ms, 3) + " ms, 3 needed (see --fit-min-ms)");
        return;
    }
    try {
        tfm::PowerFit f = tfm::fit_power_law(fx, fy);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: time ~ %s (R^2 %.4f, %zu points with median >= %g ms)", label.c_str(),
                      tfm::format_power_law(f, {"n", "D"}).c_str(), f.r2, f.points, min_ms);
        extra.notes.push_back(buf);
        fits.add({what.empty() ? "attention" : what, tfm::Table::num(f.exponents[0], 3),
                  tfm::Table::num(f.exponents[1], 3), tfm::Table::num(f.r2, 4), std::to_string(f.points)});
    } catch (const tfm::Error& e) {
        extra.notes.push_back(label + ": no fit (" + std::string(e.what()) + ")");
    }
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-bench", "Measure what the Transformer's parts cost on this machine.",
        "  tfm-bench sgemm --n 256:2048:x2\n"
        "  tfm-bench attention --n 256:4096:x2 --d 512 --heads 8\n"
        "  tfm-bench attention --n 1024 --d 64:1024:x2 --format csv > sweep.csv\n"
        "  tfm-bench layers --n 16:2048:x2 --d 512          # Table 1 of the paper, measured\n"
        "  tfm-bench translate --preset base --beam 1,4\n");
    CLI::App& app = tool.app();
    app.require_subcommand(1);
    Common common;

    std::string sg_n = "256:2048:x2";
    CLI::App* sg = app.add_subcommand("sgemm", "sgemm GFLOP/s for n x n x n products");
    sg->add_option("--n", sg_n, "Sizes, e.g. 256:2048:x2 or 512,1024");
    add_common(sg, common);

    std::string at_n = "256:4096:x2", at_d = "512";
    std::size_t heads = 8;
    bool causal = false;
    CLI::App* at = app.add_subcommand("attention",
        "One multi-head self-attention layer (projections + QK^T + softmax + PV + output projection)");
    at->add_option("--n", at_n, "Sequence lengths, e.g. 256:4096:x2");
    at->add_option("--d", at_d, "Model widths D, e.g. 512 or 64:1024:x2");
    at->add_option("-H,--heads", heads, "Heads H (default 8)")->check(in_range(1, kMaxDim));
    at->add_flag("--causal", causal, "Causal mask");
    std::string at_alg = "blocked";
    at->add_option("--algorithm", at_alg,
                   "blocked (default: 128 query rows x all keys per thread), tiled (online softmax over key blocks), "
                   "plain (all [H,n,n] scores at once), or a list, e.g. plain,tiled")
        ->check([](const std::string& v) -> std::string {
            for (const std::string& a : split_commas(v))
                if (a != "plain" && a != "blocked" && a != "tiled") return "unknown algorithm '" + a + "' (plain, blocked, tiled)";
            return "";
        });
    double fit_min_ms = 1.0;
    std::string plot_path;
    add_plot_option(at, plot_path);
    at->add_option("--fit-min-ms", fit_min_ms,
                   "Fit time ~ n^a · D^b over the points whose median is at least this (default 1 ms: compute dominates)")
        ->check(in_range(0, 1e9));
    add_common(at, common);

    std::string ly_n = "16:2048:x2", ly_d = "512", ly_kinds = "self-attention,recurrent,convolutional,restricted";
    tfm::LayerBenchOptions ly;
    CLI::App* lyc = app.add_subcommand("layers",
        "The paper's Table 1 measured: self-attention, recurrent, convolutional and restricted layers on [n,D]");
    lyc->add_option("--n", ly_n, "Sequence lengths (default 16:2048:x2)");
    lyc->add_option("--d", ly_d, "Model widths D (default 512)");
    lyc->add_option("--layers", ly_kinds, "Which layers, comma-separated (default all four)");
    lyc->add_option("-H,--heads", ly.heads, "Heads of the attention layers (default 8)")->check(in_range(1, kMaxDim));
    lyc->add_option("-k,--kernel", ly.kernel, "Convolution kernel width k (default 3)")->check(in_range(1, 1 << 20));
    lyc->add_option("-r,--window", ly.window, "Neighbourhood r of restricted self-attention (default 64)")
        ->check(in_range(1, 1 << 20));
    add_plot_option(lyc, plot_path);
    lyc->add_option("--fit-min-ms", fit_min_ms, "Fit each layer's time over points of at least this median (default 1 ms)")
        ->check(in_range(0, 1e9));
    add_common(lyc, common);

    std::string bd_n = "64:1024:x2";
    std::size_t bd_d = 512, bd_heads = 8, bd_ffn = 2048;
    CLI::App* bdc = app.add_subcommand("breakdown",
        "One encoder layer taken apart as n grows: projections, QK^T, softmax, PV, output projection, LayerNorm, FFN");
    bdc->add_option("--n", bd_n, "Sequence lengths (default 64:1024:x2)");
    bdc->add_option("--d", bd_d, "D (default 512)")->check(in_range(1, kMaxDim));
    bdc->add_option("-H,--heads", bd_heads, "H (default 8)")->check(in_range(1, kMaxDim));
    bdc->add_option("--ffn", bd_ffn, "F (default 2048)")->check(in_range(1, 1 << 20));
    add_common(bdc, common);

    std::string ds_pos = "8:256:x2", ds_preset = "base";
    std::size_t ds_src = 20, ds_vocab = 8000;
    CLI::App* dsc = app.add_subcommand("decode-step",
        "One decoding step with the key/value cache against recomputing the prefix, by target position");
    dsc->add_option("--positions", ds_pos, "Target positions (default 8:256:x2)");
    dsc->add_option("--preset", ds_preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    dsc->add_option("--source-length", ds_src, "Source tokens (default 20)")->check(in_range(1, 1 << 20));
    dsc->add_option("--vocab", ds_vocab, "V (default 8000)")->check(in_range(4, 1 << 24));
    add_common(dsc, common);

    tfm::TranslateBenchOptions tr;
    std::string tr_beams = "1,4";
    CLI::App* trc = app.add_subcommand("translate",
        "A random model of a preset translating random sentences: sentences/s and target tokens/s");
    trc->add_option("--preset", tr.preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    trc->add_option("--vocab", tr.vocab, "Vocabulary size (default 8000)")->check(in_range(1, 1 << 20));
    trc->add_option("--sentences", tr.sentences, "Sentences, all in one batch (default 32)")->check(in_range(1, 1 << 20));
    trc->add_option("--source-length", tr.source_len, "Source tokens per sentence (default 20)")->check(in_range(1, 1 << 20));
    trc->add_option("--output-length", tr.output_len, "Target tokens per sentence (default 24)")->check(in_range(1, 1 << 20));
    trc->add_option("--beam", tr_beams, "Beam sizes, e.g. 1,4 (default)");
    add_common(trc, common);

    tfm::TrainBenchOptions tb;
    CLI::App* trn = app.add_subcommand("train", "Training updates (forward, backward, Adam) of a random model: target tokens/s");
    trn->add_option("--layers", tb.layers, "Encoder and decoder layers (default 3)")->check(in_range(1, 1 << 20));
    trn->add_option("--d-model", tb.d_model, "D (default 256)")->check(in_range(1, kMaxDim));
    trn->add_option("--heads", tb.heads, "H (default 4)")->check(in_range(1, kMaxDim));
    trn->add_option("--ffn", tb.ffn, "F (default 1024)")->check(in_range(1, 1 << 20));
    trn->add_option("--vocab", tb.vocab, "V (default 8000)")->check(in_range(1, 1 << 20));
    trn->add_option("--pairs", tb.pairs, "Sentence pairs per update (default 128)")->check(in_range(1, 1 << 20));
    trn->add_option("--length", tb.length, "Tokens per sentence (default 16)")->check(in_range(1, 1 << 20));
    trn->add_option("--dropout", tb.dropout, "Dropout (default 0.1)")->check(in_range(0, 1, true));
    add_common(trn, common);

    return tool.run(argc, argv, [&] {
        if (bdc->parsed()) {
            auto ns = option_range("--n", bd_n);
            try {
                tfm::head_size(bd_d, bd_heads);
            } catch (const tfm::Error& e) {
                throw tfm::UsageError(e.what());
            }
            double ref = print_header(common);
            tfm::Table t({"n", "part", "median_ms", "share", "gflops"});
            tfm::Table reps({"n", "part", "rep", "seconds"});
            for (std::size_t n : ns) {
                auto parts = tfm::bench_encoder_layer_parts(n, bd_d, bd_heads, bd_ffn, common.timing());
                double total = 0;
                for (const auto& p : parts) total += p.timing.median;
                for (const auto& p : parts) {
                    t.add({std::to_string(n), p.name, tfm::Table::num(p.timing.median * 1e3, 3),
                           tfm::Table::num(p.timing.median / total, 3),
                           p.flops > 0 ? tfm::Table::num(p.flops / p.timing.min * 1e-9, 1) : "-"});
                    add_repetitions(reps, {std::to_string(n), p.name}, p.timing);
                }
                t.add({std::to_string(n), "layer (sum)", tfm::Table::num(total * 1e3, 3), "1.000", "-"});
            }
            Extras extra;
            extra.tables = {{"repetitions", reps}};
            emit(common, ref, t, extra);
            return;
        }
        if (dsc->parsed()) {
            auto positions = option_range("--positions", ds_pos);
            tfm::ModelConfig c = tfm::preset_config(ds_preset, ds_vocab);
            if (positions.back() + 2 > c.max_positions)
                throw tfm::UsageError("positions up to " + std::to_string(c.max_positions - 2) + " (the model's length)");
            double ref = print_header(common);
            tfm::Table t({"position", "cached_ms", "recomputed_ms", "speedup"});
            for (const auto& p : tfm::bench_decode_steps(c, ds_src, positions, common.timing()))
                t.add({std::to_string(p.position), tfm::Table::num(p.cached.median * 1e3, 3),
                       tfm::Table::num(p.recomputed.median * 1e3, 3),
                       tfm::Table::num(p.recomputed.median / p.cached.median, 1)});
            emit(common, ref, t);
            return;
        }
        if (lyc->parsed()) {
            auto ns = option_range("--n", ly_n);
            auto ds = option_range("--d", ly_d);
            std::vector<tfm::LayerKind> kinds;
            for (const std::string& k : split_commas(ly_kinds)) kinds.push_back(tfm::parse_layer_kind(k));
            for (std::size_t d : ds)
                try {
                    tfm::head_size(d, ly.heads);
                } catch (const tfm::Error& e) {
                    throw tfm::UsageError(e.what());
                }
            double ref = print_header(common);
            ly.timing = common.timing();
            tfm::Table t({"layer", "n", "D", "min_ms", "median_ms", "max_ms", "gflop", "gflops", "of_sgemm",
                          "complexity", "sequential_ops", "max_path"});
            tfm::Table reps({"layer", "n", "D", "rep", "seconds"}), fits({"layer", "n_exponent", "D_exponent", "r2", "points"});
            tfm::Table cross({"D", "layer", "n"});
            Extras extra;
            std::vector<tfm::PlotSeries> plot;
            std::vector<std::vector<std::vector<double>>> median(kinds.size(), std::vector<std::vector<double>>(ds.size()));
            for (std::size_t k = 0; k < kinds.size(); ++k) {
                const tfm::LayerTheory th = tfm::layer_theory(kinds[k]);
                std::vector<std::vector<double>> x;
                std::vector<double> y;
                for (std::size_t di = 0; di < ds.size(); ++di)
                    for (std::size_t n : ns) {
                        auto p = tfm::bench_layer(kinds[k], n, ds[di], ly);
                        t.add({th.name, std::to_string(n), std::to_string(ds[di]), tfm::Table::num(p.timing.min * 1e3, 3),
                               tfm::Table::num(p.timing.median * 1e3, 3), tfm::Table::num(p.timing.max * 1e3, 3),
                               tfm::Table::num(p.flops * 1e-9, 6), tfm::Table::num(p.gflops, 1),
                               tfm::Table::num(p.gflops / ref, 2), th.complexity, th.sequential, th.path});
                        add_repetitions(reps, {th.name, std::to_string(n), std::to_string(ds[di])}, p.timing);
                        x.push_back({double(n), double(ds[di])});
                        y.push_back(p.timing.median);
                        median[k][di].push_back(p.timing.median);
                    }
                add_fit(extra, fits, th.name, x, y, fit_min_ms);
                for (std::size_t di = 0; di < ds.size(); ++di)
                    add_series(plot, std::string(th.name) + (ds.size() > 1 ? " D=" + std::to_string(ds[di]) : ""),
                               std::vector<double>(ns.begin(), ns.end()), median[k][di], fit_min_ms);
            }
            // Where self-attention stops being the cheaper layer, per D (the paper: n < d
            // against a recurrent layer, counting operations).
            const auto self = std::find(kinds.begin(), kinds.end(), tfm::LayerKind::SelfAttention);
            if (self != kinds.end() && ns.size() > 1) {
                std::vector<double> nx(ns.begin(), ns.end());
                for (std::size_t di = 0; di < ds.size(); ++di)
                    for (std::size_t k = 0; k < kinds.size(); ++k) {
                        if (kinds[k] == tfm::LayerKind::SelfAttention) continue;
                        const std::string other = tfm::layer_theory(kinds[k]).name;
                        auto c = tfm::crossover(nx, median[std::size_t(self - kinds.begin())][di], median[k][di]);
                        const std::string where = "D=" + std::to_string(ds[di]) + ": ";
                        if (c) {
                            extra.notes.push_back(where + "self-attention and the " + other + " layer cost the same at n ~ " +
                                                  tfm::Table::num(*c, 0));
                            cross.add({std::to_string(ds[di]), other, tfm::Table::num(*c, 1)});
                        } else {
                            const bool cheaper = median[std::size_t(self - kinds.begin())][di].back() < median[k][di].back();
                            extra.notes.push_back(where + "self-attention is " + (cheaper ? "cheaper" : "dearer") +
                                                  " than the " + other + " layer over the whole range");
                        }
                    }
            }
            extra.tables = {{"repetitions", reps}, {"fits", fits}, {"crossovers", cross}};
            write_plot(plot_path, plot, {"Table 1 measured: [n,D] -> [n,D] layers", "n", "time (s)"}, extra);
            emit(common, ref, t, extra);
            return;
        }
        if (trn->parsed()) {
            double ref = print_header(common);
            tb.timing = {common.warmup, common.reps, 0.0};
            auto p = tfm::bench_train(tb);
            tfm::Table t({"layers", "D", "H", "F", "V", "pairs", "length", "median_s", "target_tokens", "tokens_per_s",
                          "peak_rss_MiB"});
            t.add({std::to_string(tb.layers), std::to_string(tb.d_model), std::to_string(tb.heads), std::to_string(tb.ffn),
                   std::to_string(tb.vocab), std::to_string(tb.pairs), std::to_string(tb.length),
                   tfm::Table::num(p.timing.median, 3), std::to_string(p.target_tokens), tfm::Table::num(p.tokens_per_s, 1),
                   tfm::Table::num(p.peak_rss_mib, 0)});
            emit(common, ref, t);
            return;
        }
        if (trc->parsed()) {
            auto beams = option_range("--beam", tr_beams);
            double ref = print_header(common);
            tr.timing = {common.warmup, common.reps, 0.0};
            tfm::Table t({"preset", "sentences", "beam", "median_s", "target_tokens", "sentences_per_s", "tokens_per_s",
                          "peak_rss_MiB"});
            for (std::size_t beam : beams) {
                tr.beam = beam;
                auto p = tfm::bench_translate(tr);
                t.add({tr.preset, std::to_string(tr.sentences), std::to_string(beam), tfm::Table::num(p.timing.median, 3),
                       std::to_string(p.target_tokens), tfm::Table::num(p.sentences_per_s, 1),
                       tfm::Table::num(p.tokens_per_s, 1), tfm::Table::num(p.peak_rss_mib, 0)});
            }
            emit(common, ref, t);
            return;
        }
        if (sg->parsed()) {
            auto sizes = option_range("--n", sg_n);
            double ref = print_header(common);
            tfm::Table t({"n", "min_ms", "gflops", "of_ref"});
            for (std::size_t n : sizes) {
                double g = tfm::sgemm_gflops(n, common.timing());
                double ms = 2.0 * double(n) * double(n) * double(n) / g * 1e-6;
                t.add({std::to_string(n), tfm::Table::num(ms, 3), tfm::Table::num(g, 1), tfm::Table::num(g / ref, 2)});
            }
            emit(common, ref, t);
            return;
        }
        auto ns = option_range("--n", at_n);
        auto ds = option_range("--d", at_d);
        for (std::size_t d : ds) {  // D % H != 0 from the flags is a usage error, found before measuring
            try {
                tfm::head_size(d, heads);
            } catch (const tfm::Error& e) {
                throw tfm::UsageError(e.what());
            }
        }
        double ref = print_header(common);
        std::vector<tfm::BenchAlgorithm> algs;
        for (const std::string& a : split_commas(at_alg)) algs.push_back(tfm::parse_bench_algorithm(a));
        tfm::Table t({"algorithm", "n", "D", "H", "min_ms", "median_ms", "max_ms", "gflop", "gflops", "of_sgemm",
                      "scores_MiB", "peak_rss_MiB"});
        tfm::Table reps({"algorithm", "n", "D", "rep", "seconds"}), fits({"layer", "n_exponent", "D_exponent", "r2", "points"});
        Extras extra;
        std::vector<tfm::PlotSeries> plot;
        for (tfm::BenchAlgorithm alg : algs) {
            const std::string name = tfm::bench_algorithm_name(alg);
            std::vector<std::vector<double>> x;
            std::vector<double> y;
            for (std::size_t d : ds) {
                for (std::size_t n : ns) {
                    tfm::AttentionBenchPoint p;
                    try {
                        p = tfm::bench_attention(n, d, heads, causal, common.timing(), alg);
                    } catch (const tfm::Error& e) {  // plain scores that cannot fit: a note, not the end
                        extra.notes.push_back(name + " n=" + std::to_string(n) + " D=" + std::to_string(d) +
                                              ": not run: " + e.what());
                        continue;
                    }
                    add_repetitions(reps, {name, std::to_string(n), std::to_string(d)}, p.timing);
                    x.push_back({double(n), double(d)});
                    y.push_back(p.timing.median);
                    t.add({name, std::to_string(n), std::to_string(d), std::to_string(heads),
                           tfm::Table::num(p.timing.min * 1e3, 3), tfm::Table::num(p.timing.median * 1e3, 3),
                           tfm::Table::num(p.timing.max * 1e3, 3), tfm::Table::num(p.flops * 1e-9, 3),
                           tfm::Table::num(p.gflops, 1), tfm::Table::num(p.gflops / ref, 2),
                           tfm::Table::num(p.scores_bytes / 1048576.0, 1), tfm::Table::num(p.peak_rss_mib, 0)});
                }
            }
            if (x.size() > 1) add_fit(extra, fits, algs.size() > 1 ? name : "", x, y, fit_min_ms);
            for (std::size_t d : ds) {
                std::vector<double> sn, sy;
                for (std::size_t i = 0; i < x.size(); ++i)
                    if (x[i][1] == double(d)) sn.push_back(x[i][0]), sy.push_back(y[i]);
                if (!sn.empty())
                    add_series(plot, (algs.size() > 1 ? name + " " : "") + "D=" + std::to_string(d), sn, sy, fit_min_ms);
            }
        }
        extra.tables = {{"repetitions", reps}, {"fits", fits}};
        if (!plot.empty()) write_plot(plot_path, plot, {"multi-head self-attention, H=" + std::to_string(heads), "n", "time (s)"}, extra);
        emit(common, ref, t, extra);
    });
}
