// tfm-bench train: training updates (forward, backward, Adam) of a random model: target
// tokens/s.
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_train.hpp"
#include "common/checks.hpp"
#include "report.hpp"
#include "tfm/base/compute_type.hpp"
#include "tfm/model/config.hpp"
#include "tfm/train/trainer.hpp"

namespace tfm::bench_tool {

namespace {
struct TrainFlags {
    TrainBenchOptions options;
    std::string preset, compute = "float32";
};
}  // namespace

Subcommand add_train(CLI::App& app, Common& common) {
    auto f = std::make_shared<TrainFlags>();
    TrainBenchOptions* tb = &f->options;
    CLI::App* sub = app.add_subcommand("train", "Training updates (forward, backward, Adam) of a random model: target tokens/s");
    sub->add_option("--preset", f->preset,
                    "The shape of a preset (base, big, small, tiny); --layers, --d-model, --heads and --ffn "
                    "given beside it change it")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    sub->add_option("--compute-type", f->compute,
                    "Compute types of the products, side by side: e.g. float32,bfloat16 (default float32), or "
                    "auto (bfloat16 where the CPU has AVX512-BF16 or AMX)");
    sub->add_option("--layers", tb->layers, "Encoder and decoder layers (default 3)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--d-model", tb->d_model, "Model width D (default 256)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("--heads", tb->heads, "Attention heads H (default 4)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("--ffn", tb->ffn, "Feed-forward width F (default 1024)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--vocab-size", tb->vocab, "Vocabulary size V (default 8000)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--batch-pairs", tb->pairs, "Sentence pairs per update (default 128)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--length", tb->length, "Tokens per sentence (default 16)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--dropout", tb->dropout, "Dropout (default 0.1)")->check(tool::in_range(0, 1, true));
    add_common(sub, common);
    return [f, sub, &common] {
        TrainBenchOptions opt = f->options;
        if (!f->preset.empty()) {
            const ModelConfig c = preset_config(f->preset, opt.vocab);
            if (!sub->count("--layers")) opt.layers = c.encoder_layers;
            if (!sub->count("--d-model")) opt.d_model = c.d_model;
            if (!sub->count("--heads")) opt.heads = c.encoder_heads;
            if (!sub->count("--ffn")) opt.ffn = c.encoder_ffn;
        }
        // Chosen as tfm-train chooses (auto: bfloat16 where the CPU has the units; the row then
        // names what ran).
        std::vector<ComputeType> types;
        Collective alone;
        for (const std::string& name : split_commas(f->compute))
            types.push_back(choose_training_compute(name, alone, [](const std::string&) {}));
        double ref = print_header(common);
        opt.timing = common.timing();
        Table t({"compute_type", "peak_gflops", "layers", "D", "H", "F", "V", "pairs", "length", "median_s",
                 "target_tokens", "tokens_per_s", "product_gflops", "peak_rss_MiB"});
        for (const ComputeType type : types) {
            opt.compute = type;
            // The type's product peak here: the header's sgemm, or the packed bf16 product.
            const double peak = type == ComputeType::Float32 ? ref : packed_gflops(common.sgemm_n, type, common.timing());
            auto p = bench_train(opt);
            t.add({compute_type_name(type), Table::num(peak, 1), std::to_string(opt.layers), std::to_string(opt.d_model),
                   std::to_string(opt.heads), std::to_string(opt.ffn), std::to_string(opt.vocab),
                   std::to_string(opt.pairs), std::to_string(opt.length), Table::num(p.timing.median, 3),
                   std::to_string(p.target_tokens), Table::num(p.tokens_per_s, 1), Table::num(p.product_gflops, 1),
                   Table::num(p.peak_rss_mib, 0)});
        }
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
