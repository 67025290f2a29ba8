// tfm-bench: measured costs, always next to this machine's own sgemm throughput. One file per
// subcommand (sgemm.cpp, attention.cpp, ...); this one holds the table of them.
#include <utility>
#include <vector>

#include "common/tool.hpp"
#include "report.hpp"

namespace {

using tfm::bench_tool::Common;
using tfm::bench_tool::Subcommand;

// In the order --help lists them.
constexpr Subcommand (*kSubcommands[])(CLI::App&, Common&) = {
    tfm::bench_tool::add_sgemm,     tfm::bench_tool::add_attention,   tfm::bench_tool::add_layers,
    tfm::bench_tool::add_breakdown, tfm::bench_tool::add_decode_step, tfm::bench_tool::add_translate,
    tfm::bench_tool::add_train,
};

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
    // One name, one meaning across the tools (tests/cli/option_names.sh).
    tool.rename_option("--vocab", "--vocab-size");
    tool.rename_option("--layers", "--kinds", "layers");
    tool.rename_option("--window", "--radius", "layers");
    tool.rename_option("--pairs", "--batch-pairs", "train");
    Common common;
    std::vector<std::pair<CLI::App*, Subcommand>> subs;
    for (auto add : kSubcommands) {
        Subcommand run = add(app, common);
        subs.emplace_back(app.get_subcommands([](CLI::App*) { return true; }).back(), std::move(run));
    }
    return tool.run(argc, argv, [&] {
        for (auto& [sub, run] : subs)
            if (sub->parsed()) run();
    });
}
