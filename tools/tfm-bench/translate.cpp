// tfm-bench translate: a random model of a preset translating random sentences, greedy and
// beam: sentences/s and target tokens/s.
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_translate.hpp"
#include "common/checks.hpp"
#include "report.hpp"
#include "tfm/base/compute_type.hpp"
#include "tfm/base/error.hpp"

namespace tfm::bench_tool {

namespace {
struct TranslateFlags {
    TranslateBenchOptions options;
    std::string beams = "1,4", compute = "float32";
};
}  // namespace

Subcommand add_translate(CLI::App& app, Common& common) {
    auto f = std::make_shared<TranslateFlags>();
    TranslateBenchOptions& tr = f->options;
    CLI::App* sub = app.add_subcommand("translate",
        "A random model of a preset translating random sentences: sentences/s and target tokens/s");
    sub->add_option("--preset", tr.preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    sub->add_option("--vocab-size", tr.vocab, "Vocabulary size V (default 8000)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--sentences", tr.sentences, "Sentences, all in one batch (default 32)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--source-length", tr.source_len, "Source tokens per sentence (default 20)")
        ->check(tool::in_range(1, 1 << 20));
    sub->add_option("--output-length", tr.output_len, "Target tokens per sentence (default 24)")
        ->check(tool::in_range(1, 1 << 20));
    sub->add_option("--beam", f->beams, "Beam sizes, e.g. 1,4 (default)");
    sub->add_option("--layers", tr.layers, "Encoder and decoder layers (default: the preset's)")->check(tool::in_range(1, 1024));
    sub->add_option("--d-model", tr.d_model, "Model width D (default: the preset's)")->check(tool::in_range(1, 65536));
    sub->add_option("--heads", tr.heads, "Attention heads H (default: the preset's)")->check(tool::in_range(1, 65536));
    sub->add_option("--ffn", tr.ffn, "Feed-forward width F (default: the preset's)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--shortlist", tr.shortlist,
                    "A vocabulary shortlist of the first K target ids: the output layer computes only those")
        ->check(tool::in_range(1, 1 << 20));
    sub->add_option("--compute-type", f->compute,
                    "Compute types, e.g. float32,bfloat16,int8 (default float32), auto, or unpacked (fp32 "
                    "through sgemm on unpacked weights, as training runs)");
    add_common(sub, common);
    return [f, &common] {
        auto beams = tool::option_range("--beam", f->beams);
        std::vector<std::string> types;
        for (const std::string& name : split_commas(f->compute)) {
            if (name == "unpacked") {
                types.push_back(name);
                continue;
            }
            if (name != "float32" && name != "bfloat16" && name != "int8" && name != "auto")
                throw UsageError("--compute-type: '" + name + "' is none of float32, bfloat16, int8, auto, unpacked");
            const ComputeType t = parse_compute_type(name);
            require_compute_type(t);
            types.push_back(compute_type_name(t));
        }
        double ref = print_header(common);
        TranslateBenchOptions opt = f->options;
        opt.timing = common.timing();
        // Beside each run, the limit its products set: their FLOPs at the type's GEMM peak, per
        // decoding step (encoder included, spread over the steps), and how near the run came.
        Table t({"preset", "shortlist", "compute_type", "gemm_gflops", "sentences", "beam", "median_s", "target_tokens",
                 "sentences_per_s", "tokens_per_s", "step_ms", "limit_step_ms", "of_limit", "peak_rss_MiB"});
        for (const std::string& type : types) {
            // The peak of the type's products here, measured as the header's sgemm is.
            const double peak = type == "unpacked" ? ref
                                                   : packed_gflops(common.sgemm_n, parse_compute_type(type), common.timing());
            opt.compute = type;
            for (std::size_t beam : beams) {
                opt.beam = beam;
                auto p = bench_translate(opt);
                const double limit_s = p.product_flops / (peak * 1e9);
                t.add({opt.preset, opt.shortlist ? std::to_string(opt.shortlist) : "none", type, Table::num(peak, 1), std::to_string(opt.sentences), std::to_string(beam),
                       Table::num(p.timing.median, 3), std::to_string(p.target_tokens), Table::num(p.sentences_per_s, 1),
                       Table::num(p.tokens_per_s, 1), Table::num(1e3 * p.timing.median / double(p.steps), 2),
                       Table::num(1e3 * limit_s / double(p.steps), 2), Table::num(limit_s / p.timing.median, 2),
                       Table::num(p.peak_rss_mib, 0)});
            }
        }
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
