// tfm-bench sgemm: this machine's sgemm GFLOP/s for n x n x n products.
#include "common/checks.hpp"
#include "report.hpp"

namespace tfm::bench_tool {

Subcommand add_sgemm(CLI::App& app, Common& common) {
    auto n_spec = std::make_shared<std::string>("256:2048:x2");
    CLI::App* sub = app.add_subcommand("sgemm", "sgemm GFLOP/s for n x n x n products");
    sub->add_option("--n", *n_spec, "Sizes, e.g. 256:2048:x2 or 512,1024");
    add_common(sub, common);
    return [=, &common] {
        auto sizes = tool::option_range("--n", *n_spec);
        double ref = print_header(common);
        Table t({"n", "min_ms", "gflops", "of_ref"});
        for (std::size_t n : sizes) {
            double g = sgemm_gflops(n, common.timing());
            double ms = 2.0 * double(n) * double(n) * double(n) / g * 1e-6;
            t.add({std::to_string(n), Table::num(ms, 3), Table::num(g, 1), Table::num(g / ref, 2)});
        }
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
