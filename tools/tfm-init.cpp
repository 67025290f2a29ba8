// tfm-init: a new model directory with random (Xavier) weights, from a preset and a
// SentencePiece model (given, or trained here on text files).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/checks.hpp"
#include "common/model_flags.hpp"
#include "common/tool.hpp"
#include "tfm/io/dir_guard.hpp"
#include "tfm/base/error.hpp"
#include "tfm/model/model_dir.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-init", "Create a randomly initialised Transformer model directory.",
        "  tfm-init -o model --preset base --train-spm corpus.de corpus.en --vocab-size 8000\n"
        "  tfm-init -o tiny --preset tiny --spm existing.model --seed 7\n"
        "  tfm-init -o sep --preset small --spm de.model en.model     # separate vocabularies\n"
        "  echo 'ein Haus' | tfm-translate -m model     # runs (untrained: the output is noise)\n");
    CLI::App& app = tool.app();
    std::string out;
    std::vector<std::string> spm;
    std::vector<std::string> texts;
    std::uint64_t seed = 1;
    tfm::SpmTrainOptions spm_opt;
    tfm::tool::ArchFlags arch;
    app.add_option("-o,--output", out, "Model directory to create")->required();
    auto* spm_opt_flag = app.add_option("--spm", spm,
                                        "SentencePiece model to share, or a source and a target model (separate "
                                        "vocabularies and embeddings)")
        ->expected(1, 2)->check(CLI::ExistingFile);
    auto* train_flag = app.add_option("--train-spm", texts, "Train a SentencePiece model on these text files (gzip ok)")
        ->check(CLI::ExistingFile);
    spm_opt_flag->excludes(train_flag);
    app.add_option("--vocab-size", spm_opt.vocab_size, "Vocabulary size: with --train-spm, the pieces to train (default 8000)")
        ->needs(train_flag)->check(tfm::tool::in_range(8, 1 << 20));
    app.add_option("--spm-type", spm_opt.model_type, "With --train-spm: unigram (default) or bpe")
        ->needs(train_flag)->check(CLI::IsMember({"unigram", "bpe"}));
    app.add_option("--seed", seed, "Seed of the weights (default 1)");
    bool force = false;
    app.add_flag("--force", force, "Replace what the output directory holds (an existing model and its checkpoints)");
    tfm::tool::add_arch_flags(app, arch);
    tool.rename_option("--positions", "--position-encoding");

    return tool.run(argc, argv, [&] {
        if (spm.empty() && texts.empty()) throw tfm::UsageError("give --spm MODEL or --train-spm TEXT...");
        // Built beside its place and moved in whole: nothing is overwritten without --force.
        tfm::StagedDir staged(out, force);
        tfm::tool::VocabularySource vocab{spm, texts, {}, false, spm_opt};
        staged.fill([&](const std::string& dir) { tfm::tool::create_model(dir, arch, vocab, seed, 1); });
        staged.commit();
    });
}
