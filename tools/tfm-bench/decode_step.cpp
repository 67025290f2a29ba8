// tfm-bench decode-step: one decoding step with the key/value cache against recomputing the
// whole prefix, by target position.
#include <memory>

#include "bench/bench_breakdown.hpp"
#include "common/checks.hpp"
#include "report.hpp"
#include "tfm/base/error.hpp"

namespace tfm::bench_tool {

namespace {
struct DecodeStepFlags {
    std::string positions = "8:256:x2", preset = "base";
    std::size_t source_len = 20, vocab = 8000;
};
}  // namespace

Subcommand add_decode_step(CLI::App& app, Common& common) {
    auto f = std::make_shared<DecodeStepFlags>();
    CLI::App* sub = app.add_subcommand("decode-step",
        "One decoding step with the key/value cache against recomputing the prefix, by target position");
    sub->add_option("--positions", f->positions, "Target positions (default 8:256:x2)");
    sub->add_option("--preset", f->preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    sub->add_option("--source-length", f->source_len, "Source tokens (default 20)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--vocab-size", f->vocab, "Vocabulary size V (default 8000)")->check(tool::in_range(4, 1 << 24));
    add_common(sub, common);
    return [f, &common] {
        auto positions = tool::option_range("--positions", f->positions);
        ModelConfig c = preset_config(f->preset, f->vocab);
        if (positions.back() + 2 > c.max_positions)
            throw UsageError("positions up to " + std::to_string(c.max_positions - 2) + " (the model's length)");
        double ref = print_header(common);
        Table t({"position", "cached_ms", "recomputed_ms", "speedup"});
        for (const auto& p : bench_decode_steps(c, f->source_len, positions, common.timing()))
            t.add({std::to_string(p.position), Table::num(p.cached.median * 1e3, 3), Table::num(p.recomputed.median * 1e3, 3),
                   Table::num(p.recomputed.median / p.cached.median, 1)});
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
