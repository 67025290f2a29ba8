// tfm-bench layers: the paper's Table 1 measured. Self-attention, recurrent, convolutional
// and restricted self-attention layers on [n,D], with fitted power laws and the n where
// self-attention stops being the cheaper layer.
#include <algorithm>
#include <memory>

#include "bench/bench_layers.hpp"
#include "bench/fit.hpp"
#include "common/checks.hpp"
#include "report.hpp"

namespace tfm::bench_tool {

namespace {
struct LayersFlags {
    std::string n = "16:2048:x2", d = "512", kinds = "self-attention,recurrent,convolutional,restricted", plot;
    LayerBenchOptions layer;
    double fit_min_ms = 1.0;
};

// Where self-attention stops being the cheaper layer, per D (the paper: n < d against a
// recurrent layer, counting operations), as notes and rows of the crossovers table.
void add_crossovers(Extras& extra, Table& cross, const std::vector<LayerKind>& kinds, const std::vector<std::size_t>& ns,
                    const std::vector<std::size_t>& ds, const std::vector<std::vector<std::vector<double>>>& median) {
    const auto self = std::find(kinds.begin(), kinds.end(), LayerKind::SelfAttention);
    if (self == kinds.end() || ns.size() < 2) return;
    const std::size_t s = std::size_t(self - kinds.begin());
    std::vector<double> nx(ns.begin(), ns.end());
    for (std::size_t di = 0; di < ds.size(); ++di)
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            if (k == s) continue;
            const std::string other = layer_theory(kinds[k]).name;
            auto c = crossover(nx, median[s][di], median[k][di]);
            const std::string where = "D=" + std::to_string(ds[di]) + ": ";
            if (c) {
                extra.notes.push_back(where + "self-attention and the " + other + " layer cost the same at n ~ " +
                                      Table::num(*c, 0));
                cross.add({std::to_string(ds[di]), other, Table::num(*c, 1)});
            } else {
                const bool cheaper = median[s][di].back() < median[k][di].back();
                extra.notes.push_back(where + "self-attention is " + (cheaper ? "cheaper" : "dearer") + " than the " +
                                      other + " layer over the whole range");
            }
        }
}
}  // namespace

Subcommand add_layers(CLI::App& app, Common& common) {
    auto f = std::make_shared<LayersFlags>();
    CLI::App* sub = app.add_subcommand("layers",
        "The paper's Table 1 measured: self-attention, recurrent, convolutional and restricted layers on [n,D]");
    sub->add_option("--n", f->n, "Sequence lengths (default 16:2048:x2)");
    sub->add_option("--d", f->d, "Model widths D (default 512)");
    sub->add_option("--kinds", f->kinds, "Which kinds of layer, comma-separated (default all four)");
    sub->add_option("-H,--heads", f->layer.heads, "Attention heads H of the attention layers (default 8)")
        ->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("-k,--kernel", f->layer.kernel, "Convolution kernel width k (default 3)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("-r,--radius", f->layer.window, "Neighbourhood r of restricted self-attention (default 64)")
        ->check(tool::in_range(1, 1 << 20));
    add_plot_option(sub, f->plot);
    sub->add_option("--fit-min-ms", f->fit_min_ms, "Fit each layer's time over points of at least this median (default 1 ms)")
        ->check(tool::in_range(0, 1e9));
    add_common(sub, common);
    return [f, &common] {
        auto ns = tool::option_range("--n", f->n);
        auto ds = tool::option_range("--d", f->d);
        std::vector<LayerKind> kinds;
        for (const std::string& k : split_commas(f->kinds)) kinds.push_back(parse_layer_kind(k));
        for (std::size_t d : ds) check_heads(d, f->layer.heads);
        double ref = print_header(common);
        LayerBenchOptions ly = f->layer;
        ly.timing = common.timing();
        Table t({"layer", "n", "D", "min_ms", "median_ms", "max_ms", "gflop", "gflops", "of_sgemm", "complexity",
                 "sequential_ops", "max_path"});
        Table reps({"layer", "n", "D", "rep", "seconds"}), fits({"layer", "n_exponent", "D_exponent", "r2", "points"});
        Table cross({"D", "layer", "n"});
        Extras extra;
        std::vector<PlotSeries> plot;
        std::vector<std::vector<std::vector<double>>> median(kinds.size(), std::vector<std::vector<double>>(ds.size()));
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            const LayerTheory th = layer_theory(kinds[k]);
            std::vector<std::vector<double>> x;
            std::vector<double> y;
            for (std::size_t di = 0; di < ds.size(); ++di)
                for (std::size_t n : ns) {
                    auto p = bench_layer(kinds[k], n, ds[di], ly);
                    t.add({th.name, std::to_string(n), std::to_string(ds[di]), Table::num(p.timing.min * 1e3, 3),
                           Table::num(p.timing.median * 1e3, 3), Table::num(p.timing.max * 1e3, 3),
                           Table::num(p.flops * 1e-9, 6), Table::num(p.gflops, 1), Table::num(p.gflops / ref, 2),
                           th.complexity, th.sequential, th.path});
                    add_repetitions(reps, {th.name, std::to_string(n), std::to_string(ds[di])}, p.timing);
                    x.push_back({double(n), double(ds[di])});
                    y.push_back(p.timing.median);
                    median[k][di].push_back(p.timing.median);
                }
            add_fit(extra, fits, th.name, x, y, f->fit_min_ms);
            for (std::size_t di = 0; di < ds.size(); ++di)
                add_series(plot, std::string(th.name) + (ds.size() > 1 ? " D=" + std::to_string(ds[di]) : ""),
                           std::vector<double>(ns.begin(), ns.end()), median[k][di], f->fit_min_ms);
        }
        add_crossovers(extra, cross, kinds, ns, ds, median);
        extra.tables = {{"repetitions", reps}, {"fits", fits}, {"crossovers", cross}};
        write_plot(f->plot, plot, {"Table 1 measured: [n,D] -> [n,D] layers", "n", "time (s)"}, extra);
        emit(common, ref, t, extra);
    };
}

}  // namespace tfm::bench_tool
