// tfm-bench translate: a random model of a preset translating random sentences, greedy and
// beam: sentences/s and target tokens/s.
#include <memory>

#include "bench/bench_translate.hpp"
#include "common/checks.hpp"
#include "report.hpp"

namespace tfm::bench_tool {

namespace {
struct Flags {
    TranslateBenchOptions options;
    std::string beams = "1,4";
};
}  // namespace

Subcommand add_translate(CLI::App& app, Common& common) {
    auto f = std::make_shared<Flags>();
    TranslateBenchOptions& tr = f->options;
    CLI::App* sub = app.add_subcommand("translate",
        "A random model of a preset translating random sentences: sentences/s and target tokens/s");
    sub->add_option("--preset", tr.preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    sub->add_option("--vocab", tr.vocab, "Vocabulary size (default 8000)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--sentences", tr.sentences, "Sentences, all in one batch (default 32)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--source-length", tr.source_len, "Source tokens per sentence (default 20)")
        ->check(tool::in_range(1, 1 << 20));
    sub->add_option("--output-length", tr.output_len, "Target tokens per sentence (default 24)")
        ->check(tool::in_range(1, 1 << 20));
    sub->add_option("--beam", f->beams, "Beam sizes, e.g. 1,4 (default)");
    add_common(sub, common);
    return [f, &common] {
        auto beams = tool::option_range("--beam", f->beams);
        double ref = print_header(common);
        TranslateBenchOptions opt = f->options;
        opt.timing = common.timing();
        Table t({"preset", "sentences", "beam", "median_s", "target_tokens", "sentences_per_s", "tokens_per_s",
                 "peak_rss_MiB"});
        for (std::size_t beam : beams) {
            opt.beam = beam;
            auto p = bench_translate(opt);
            t.add({opt.preset, std::to_string(opt.sentences), std::to_string(beam), Table::num(p.timing.median, 3),
                   std::to_string(p.target_tokens), Table::num(p.sentences_per_s, 1), Table::num(p.tokens_per_s, 1),
                   Table::num(p.peak_rss_mib, 0)});
        }
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
