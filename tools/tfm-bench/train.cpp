// tfm-bench train: training updates (forward, backward, Adam) of a random model: target
// tokens/s.
#include <memory>

#include "bench/bench_train.hpp"
#include "common/checks.hpp"
#include "report.hpp"

namespace tfm::bench_tool {

Subcommand add_train(CLI::App& app, Common& common) {
    auto tb = std::make_shared<TrainBenchOptions>();
    CLI::App* sub = app.add_subcommand("train", "Training updates (forward, backward, Adam) of a random model: target tokens/s");
    sub->add_option("--layers", tb->layers, "Encoder and decoder layers (default 3)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--d-model", tb->d_model, "Model width D (default 256)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("--heads", tb->heads, "Attention heads H (default 4)")->check(tool::in_range(1, tool::kMaxDim));
    sub->add_option("--ffn", tb->ffn, "Feed-forward width F (default 1024)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--vocab-size", tb->vocab, "Vocabulary size V (default 8000)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--batch-pairs", tb->pairs, "Sentence pairs per update (default 128)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--length", tb->length, "Tokens per sentence (default 16)")->check(tool::in_range(1, 1 << 20));
    sub->add_option("--dropout", tb->dropout, "Dropout (default 0.1)")->check(tool::in_range(0, 1, true));
    add_common(sub, common);
    return [tb, &common] {
        double ref = print_header(common);
        TrainBenchOptions opt = *tb;
        opt.timing = common.timing();
        auto p = bench_train(opt);
        Table t({"layers", "D", "H", "F", "V", "pairs", "length", "median_s", "target_tokens", "tokens_per_s",
                 "peak_rss_MiB"});
        t.add({std::to_string(opt.layers), std::to_string(opt.d_model), std::to_string(opt.heads), std::to_string(opt.ffn),
               std::to_string(opt.vocab), std::to_string(opt.pairs), std::to_string(opt.length),
               Table::num(p.timing.median, 3), std::to_string(p.target_tokens), Table::num(p.tokens_per_s, 1),
               Table::num(p.peak_rss_mib, 0)});
        emit(common, ref, t);
    };
}

}  // namespace tfm::bench_tool
