// tfm-bench breakdown: one encoder layer taken apart as n grows (projections, QK^T, softmax,
// PV, output projection, LayerNorm, FFN), each part's share of the layer.
#include <memory>

#include "bench/bench_breakdown.hpp"
#include "common/checks.hpp"
#include "report.hpp"

namespace tfm::bench_tool {

namespace {
struct BreakdownFlags {
    std::string n = "64:1024:x2";
    std::size_t d = 512, heads = 8, ffn = 2048;
};
}  // namespace

Subcommand add_breakdown(CLI::App& app, Common& common) {
    auto f = std::make_shared<BreakdownFlags>();
    CLI::App* sub = app.add_subcommand("breakdown",
        "One encoder layer taken apart as n grows: projections, QK^T, softmax, PV, output projection, LayerNorm, FFN");
    sub->add_option("--n", f->n, "Sequence lengths (default 64:1024:x2)");
    sub->add_option("--d", f->d, "Model widths D (default 512)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("-H,--heads", f->heads, "Attention heads H (default 8)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("--ffn", f->ffn, "Feed-forward width F (default 2048)")->check(tool::in_range(1, 1 << 20));
    add_common(sub, common);
    return [f, &common] {
        auto ns = tool::option_range("--n", f->n);
        check_heads(f->d, f->heads);
        double ref = print_header(common);
        Table t({"n", "part", "median_ms", "share", "gflops"});
        Table reps({"n", "part", "rep", "seconds"});
        for (std::size_t n : ns) {
            auto parts = bench_encoder_layer_parts(n, f->d, f->heads, f->ffn, common.timing());
            double total = 0;
            for (const auto& p : parts) total += p.timing.median;
            for (const auto& p : parts) {
                t.add({std::to_string(n), p.name, Table::num(p.timing.median * 1e3, 3), Table::num(p.timing.median / total, 3),
                       p.flops > 0 ? Table::num(p.flops / p.timing.min * 1e-9, 1) : "-"});
                add_repetitions(reps, {std::to_string(n), p.name}, p.timing);
            }
            t.add({std::to_string(n), "layer (sum)", Table::num(total * 1e3, 3), "1.000", "-"});
        }
        Extras extra;
        extra.tables = {{"repetitions", reps}};
        emit(common, ref, t, extra);
    };
}

}  // namespace tfm::bench_tool
