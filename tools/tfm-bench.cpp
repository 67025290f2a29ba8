// tfm-bench: measured costs, always next to this machine's own sgemm throughput.
#include <cstdio>
#include <string>

#include "common/tool.hpp"
#include "tfm/bench.hpp"
#include "tfm/bench_attention.hpp"
#include "tfm/bench_train.hpp"
#include "tfm/bench_translate.hpp"
#include "tfm/error.hpp"
#include "tfm/attention.hpp"
#include "tfm/gemm.hpp"
#include "tfm/parallel.hpp"
#include "tfm/table.hpp"

namespace {

struct Common {
    std::string format = "table";
    int reps = 5, warmup = 1, threads = 0;
    std::size_t sgemm_n = 1024;
    tfm::TimingOptions timing() const { return {warmup, reps, 0.0}; }
};

void add_common(CLI::App* sub, Common& c) {
    sub->add_option("--format", c.format, "table (default), csv, json or markdown")
        ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
    sub->add_option("--reps", c.reps, "Timed repetitions per point (default 5)")->check(CLI::PositiveNumber);
    sub->add_option("--warmup", c.warmup, "Untimed runs first (default 1)")->check(CLI::NonNegativeNumber);
    sub->add_option("--threads", c.threads, "Threads (default: all CPUs, or TFM_THREADS)")->check(CLI::PositiveNumber);
    sub->add_option("--sgemm-n", c.sgemm_n, "Size of the reference sgemm (default 1024)")->check(CLI::PositiveNumber);
}

// The header every run prints: the machine and its sgemm GFLOP/s measured in this run.
double print_header(const Common& c) {
    tfm::set_num_threads(c.threads);
    tfm::MachineInfo m = tfm::machine_info();
    double ref = tfm::sgemm_gflops(c.sgemm_n, c.timing());
    std::string prefix = c.format == "json" ? "" : "# ";
    if (c.format == "json") return ref;  // the JSON document carries the header itself
    std::printf("%smachine: %s, %u cores, %d threads, %s\n", prefix.c_str(), m.cpu.c_str(), m.cores,
                m.threads, m.blas.c_str());
    std::printf("%ssgemm n=%zu: %.1f GFLOP/s\n", prefix.c_str(), c.sgemm_n, ref);
    std::fflush(stdout);
    return ref;
}

tfm::Table machine_table(const Common& c, double ref) {
    tfm::MachineInfo m = tfm::machine_info();
    tfm::Table t({"cpu", "cores", "threads", "blas", "sgemm_n", "sgemm_gflops"});
    t.add({m.cpu, std::to_string(m.cores), std::to_string(m.threads), m.blas, std::to_string(c.sgemm_n),
           tfm::Table::num(ref, 1)});
    return t;
}

void emit(const Common& c, double ref, const tfm::Table& t) {
    tfm::Output out(1);
    if (c.format == "json")
        out.write(tfm::tables_to_json({{"machine", machine_table(c, ref)}, {"points", t}}));
    else
        out.write(t.render(tfm::parse_table_format(c.format)));
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-bench", "Measure what the Transformer's parts cost on this machine.",
        "  tfm-bench sgemm --n 256:2048:x2\n"
        "  tfm-bench attention --n 256:4096:x2 --d 512 --heads 8\n"
        "  tfm-bench attention --n 1024 --d 64:1024:x2 --format csv > sweep.csv\n"
        "  tfm-bench translate --preset base --beam 1,4\n");
    CLI::App& app = tool.app();
    app.require_subcommand(1);
    Common common;

    std::string sg_n = "256:2048:x2";
    CLI::App* sg = app.add_subcommand("sgemm", "sgemm GFLOP/s for n x n x n products");
    sg->add_option("--n", sg_n, "Sizes, e.g. 256:2048:x2 or 512,1024");
    add_common(sg, common);

    std::string at_n = "256:4096:x2", at_d = "512";
    std::size_t heads = 8;
    bool causal = false;
    CLI::App* at = app.add_subcommand("attention",
        "One multi-head self-attention layer (projections + QK^T + softmax + PV + output projection)");
    at->add_option("--n", at_n, "Sequence lengths, e.g. 256:4096:x2");
    at->add_option("--d", at_d, "Model widths D, e.g. 512 or 64:1024:x2");
    at->add_option("-H,--heads", heads, "Heads H (default 8)")->check(CLI::PositiveNumber);
    at->add_flag("--causal", causal, "Causal mask");
    add_common(at, common);

    tfm::TranslateBenchOptions tr;
    std::string tr_beams = "1,4";
    CLI::App* trc = app.add_subcommand("translate",
        "A random model of a preset translating random sentences: sentences/s and target tokens/s");
    trc->add_option("--preset", tr.preset, "base (default), big, small or tiny")
        ->check(CLI::IsMember({"base", "big", "small", "tiny"}));
    trc->add_option("--vocab", tr.vocab, "Vocabulary size (default 8000)")->check(CLI::PositiveNumber);
    trc->add_option("--sentences", tr.sentences, "Sentences, all in one batch (default 32)")->check(CLI::PositiveNumber);
    trc->add_option("--source-length", tr.source_len, "Source tokens per sentence (default 20)")->check(CLI::PositiveNumber);
    trc->add_option("--output-length", tr.output_len, "Target tokens per sentence (default 24)")->check(CLI::PositiveNumber);
    trc->add_option("--beam", tr_beams, "Beam sizes, e.g. 1,4 (default)");
    add_common(trc, common);

    tfm::TrainBenchOptions tb;
    CLI::App* trn = app.add_subcommand("train", "Training updates (forward, backward, Adam) of a random model: target tokens/s");
    trn->add_option("--layers", tb.layers, "Encoder and decoder layers (default 3)")->check(CLI::PositiveNumber);
    trn->add_option("--d-model", tb.d_model, "D (default 256)")->check(CLI::PositiveNumber);
    trn->add_option("--heads", tb.heads, "H (default 4)")->check(CLI::PositiveNumber);
    trn->add_option("--ffn", tb.ffn, "F (default 1024)")->check(CLI::PositiveNumber);
    trn->add_option("--vocab", tb.vocab, "V (default 8000)")->check(CLI::PositiveNumber);
    trn->add_option("--pairs", tb.pairs, "Sentence pairs per update (default 128)")->check(CLI::PositiveNumber);
    trn->add_option("--length", tb.length, "Tokens per sentence (default 16)")->check(CLI::PositiveNumber);
    trn->add_option("--dropout", tb.dropout, "Dropout (default 0.1)");
    add_common(trn, common);

    return tool.run(argc, argv, [&] {
        if (trn->parsed()) {
            double ref = print_header(common);
            tb.timing = {common.warmup, common.reps, 0.0};
            auto p = tfm::bench_train(tb);
            tfm::Table t({"layers", "D", "H", "F", "V", "pairs", "length", "median_s", "target_tokens", "tokens_per_s",
                          "peak_rss_MiB"});
            t.add({std::to_string(tb.layers), std::to_string(tb.d_model), std::to_string(tb.heads), std::to_string(tb.ffn),
                   std::to_string(tb.vocab), std::to_string(tb.pairs), std::to_string(tb.length),
                   tfm::Table::num(p.timing.median, 3), std::to_string(p.target_tokens), tfm::Table::num(p.tokens_per_s, 1),
                   tfm::Table::num(p.peak_rss_mib, 0)});
            emit(common, ref, t);
            return;
        }
        if (trc->parsed()) {
            auto beams = tfm::parse_range(tr_beams);
            double ref = print_header(common);
            tr.timing = {common.warmup, common.reps, 0.0};
            tfm::Table t({"preset", "sentences", "beam", "median_s", "target_tokens", "sentences_per_s", "tokens_per_s",
                          "peak_rss_MiB"});
            for (std::size_t beam : beams) {
                tr.beam = beam;
                auto p = tfm::bench_translate(tr);
                t.add({tr.preset, std::to_string(tr.sentences), std::to_string(beam), tfm::Table::num(p.timing.median, 3),
                       std::to_string(p.target_tokens), tfm::Table::num(p.sentences_per_s, 1),
                       tfm::Table::num(p.tokens_per_s, 1), tfm::Table::num(p.peak_rss_mib, 0)});
            }
            emit(common, ref, t);
            return;
        }
        if (sg->parsed()) {
            auto sizes = tfm::parse_range(sg_n);
            double ref = print_header(common);
            tfm::Table t({"n", "min_ms", "gflops", "of_ref"});
            for (std::size_t n : sizes) {
                double g = tfm::sgemm_gflops(n, common.timing());
                double ms = 2.0 * double(n) * double(n) * double(n) / g * 1e-6;
                t.add({std::to_string(n), tfm::Table::num(ms, 3), tfm::Table::num(g, 1), tfm::Table::num(g / ref, 2)});
            }
            emit(common, ref, t);
            return;
        }
        auto ns = tfm::parse_range(at_n);
        auto ds = tfm::parse_range(at_d);
        for (std::size_t d : ds) {  // D % H != 0 from the flags is a usage error, found before measuring
            try {
                tfm::head_size(d, heads);
            } catch (const tfm::Error& e) {
                throw tfm::UsageError(e.what());
            }
        }
        double ref = print_header(common);
        tfm::Table t({"n", "D", "H", "min_ms", "median_ms", "max_ms", "gflop", "gflops", "of_sgemm", "scores_MiB"});
        for (std::size_t d : ds) {
            for (std::size_t n : ns) {
                auto p = tfm::bench_attention(n, d, heads, causal, common.timing());
                t.add({std::to_string(n), std::to_string(d), std::to_string(heads), tfm::Table::num(p.timing.min * 1e3, 3),
                       tfm::Table::num(p.timing.median * 1e3, 3), tfm::Table::num(p.timing.max * 1e3, 3),
                       tfm::Table::num(p.flops * 1e-9, 3), tfm::Table::num(p.gflops, 1),
                       tfm::Table::num(p.gflops / ref, 2), tfm::Table::num(p.scores_bytes / 1048576.0, 1)});
            }
        }
        emit(common, ref, t);
    });
}
