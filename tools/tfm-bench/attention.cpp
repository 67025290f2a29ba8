// tfm-bench attention: one multi-head self-attention layer (projections, QK^T, softmax, PV,
// output projection) swept over n and D, with the fitted power law and an optional plot.
#include <memory>

#include "bench/bench_attention.hpp"
#include "common/checks.hpp"
#include "report.hpp"
#include "tfm/base/error.hpp"

namespace tfm::bench_tool {

namespace {
struct AttentionFlags {
    std::string n = "256:4096:x2", d = "512", algorithm = "blocked", plot;
    std::size_t heads = 8;
    bool causal = false;
    double fit_min_ms = 1.0;
};
}  // namespace

Subcommand add_attention(CLI::App& app, Common& common) {
    auto f = std::make_shared<AttentionFlags>();
    CLI::App* sub = app.add_subcommand("attention",
        "One multi-head self-attention layer (projections + QK^T + softmax + PV + output projection)");
    sub->add_option("--n", f->n, "Sequence lengths, e.g. 256:4096:x2");
    sub->add_option("--d", f->d, "Model widths D, e.g. 512 or 64:1024:x2");
    sub->add_option("-H,--heads", f->heads, "Attention heads H (default 8)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_flag("--causal", f->causal, "Causal mask");
    sub->add_option("--algorithm", f->algorithm,
                   "blocked (default: 128 query rows x all keys per thread), tiled (online softmax over key blocks), "
                   "plain (all [H,n,n] scores at once), or a list, e.g. plain,tiled")
        ->check([](const std::string& v) -> std::string {
            for (const std::string& a : split_commas(v))
                if (a != "plain" && a != "blocked" && a != "tiled") return "unknown algorithm '" + a + "' (plain, blocked, tiled)";
            return "";
        });
    add_plot_option(sub, f->plot);
    sub->add_option("--fit-min-ms", f->fit_min_ms,
                   "Fit time ~ n^a · D^b over the points whose median is at least this (default 1 ms: compute dominates)")
        ->check(tool::in_range(0, 1e9));
    add_common(sub, common);
    return [f, &common] {
        auto ns = tool::option_range("--n", f->n);
        auto ds = tool::option_range("--d", f->d);
        for (std::size_t d : ds) check_heads(d, f->heads);
        double ref = print_header(common);
        std::vector<BenchAlgorithm> algs;
        for (const std::string& a : split_commas(f->algorithm)) algs.push_back(parse_bench_algorithm(a));
        Table t({"algorithm", "n", "D", "H", "min_ms", "median_ms", "max_ms", "gflop", "gflops", "of_sgemm",
                 "scores_MiB", "peak_rss_MiB"});
        Table reps({"algorithm", "n", "D", "rep", "seconds"}), fits({"layer", "n_exponent", "D_exponent", "r2", "points"});
        Extras extra;
        std::vector<PlotSeries> plot;
        for (BenchAlgorithm alg : algs) {
            const std::string name = bench_algorithm_name(alg);
            std::vector<std::vector<double>> x;
            std::vector<double> y;
            for (std::size_t d : ds) {
                for (std::size_t n : ns) {
                    AttentionBenchPoint p;
                    try {
                        p = bench_attention(n, d, f->heads, f->causal, common.timing(), alg);
                    } catch (const Error& e) {  // plain scores that cannot fit: a note, not the end
                        extra.notes.push_back(name + " n=" + std::to_string(n) + " D=" + std::to_string(d) +
                                              ": not run: " + e.what());
                        continue;
                    }
                    add_repetitions(reps, {name, std::to_string(n), std::to_string(d)}, p.timing);
                    x.push_back({double(n), double(d)});
                    y.push_back(p.timing.median);
                    t.add({name, std::to_string(n), std::to_string(d), std::to_string(f->heads),
                           Table::num(p.timing.min * 1e3, 3), Table::num(p.timing.median * 1e3, 3),
                           Table::num(p.timing.max * 1e3, 3), Table::num(p.flops * 1e-9, 3),
                           Table::num(p.gflops, 1), Table::num(p.gflops / ref, 2),
                           Table::num(p.scores_bytes / 1048576.0, 1), Table::num(p.peak_rss_mib, 0)});
                }
            }
            if (x.size() > 1) add_fit(extra, fits, algs.size() > 1 ? name : "", x, y, f->fit_min_ms);
            for (std::size_t d : ds) {
                std::vector<double> sn, sy;
                for (std::size_t i = 0; i < x.size(); ++i)
                    if (x[i][1] == double(d)) sn.push_back(x[i][0]), sy.push_back(y[i]);
                if (!sn.empty())
                    add_series(plot, (algs.size() > 1 ? name + " " : "") + "D=" + std::to_string(d), sn, sy, f->fit_min_ms);
            }
        }
        extra.tables = {{"repetitions", reps}, {"fits", fits}};
        if (!plot.empty())
            write_plot(f->plot, plot, {"multi-head self-attention, H=" + std::to_string(f->heads), "n", "time (s)"}, extra);
        emit(common, ref, t, extra);
    };
}

}  // namespace tfm::bench_tool
