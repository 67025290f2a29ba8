// tfm-shortlist: a vocabulary shortlist for tfm-translate --shortlist from a parallel corpus:
// IBM model 1's lexical table over the model's pieces, in Marian's text format, or Marian's
// binary one.
#include <unistd.h>

#include "common/checks.hpp"
#include "common/model_option.hpp"
#include "common/tool.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/tokenizer.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-shortlist",
        "Write a vocabulary shortlist (Marian's lexical table) for a model from a parallel corpus.",
        "  tfm-shortlist -m model train.de.gz train.en.gz > lex.s2t\n"
        "  tfm-translate -m model --shortlist lex.s2t 100 50 < test.de\n"
        "  tfm-shortlist -m model train.de train.en --binary --first 100 --best 50 -o lex.bin\n");
    using tfm::tool::in_range;
    CLI::App& app = tool.app();
    std::string model_dir, source, target, output = "-";
    tfm::LexiconOptions opt;
    bool binary = false;
    std::size_t first = 100;
    tfm::tool::add_model_option(app, model_dir);
    app.add_option("source", source, "Source sentences, one per line (gzip ok)")->required();
    app.add_option("target", target, "Their translations, line-aligned")->required();
    app.add_option("-o,--output", output, "Where to write the shortlist (default: stdout)");
    app.add_option("--iterations", opt.iterations, "EM iterations of IBM model 1 (default 5)")->check(in_range(1, 100));
    app.add_option("--best", opt.best, "Targets kept per source piece, the most probable (default 100)")
        ->check(in_range(1, 1e6));
    app.add_option("--threshold", opt.threshold, "Keep only targets more probable than this (default 0.0001)")
        ->check(in_range(0, 1));
    app.add_option("--max-lines", opt.max_lines, "Read at most this many sentence pairs (default 2000000)")
        ->check(in_range(1, 1e9));
    app.add_option("--max-pieces", opt.max_length, "Skip pairs with more pieces than this on a side (default 200)")
        ->check(in_range(1, 1e6));
    app.add_flag("--binary", binary, "Write Marian's binary shortlist (FIRST and BEST baked in) instead of text");
    app.add_option("--first", first, "With --binary: target ids below this are always candidates (default 100)")
        ->check(in_range(0, 1e9));
    return tool.run(argc, argv, [&] {
        // The tokenizer and the vocabulary sizes are all it needs: the weights are not read.
        const std::string dir = tfm::tool::model_dir_or_default(model_dir);
        const tfm::ModelConfig config = tfm::load_config(dir + "/config.json");
        const tfm::Tokenizer tokenizer = tfm::Tokenizer::load(dir, config);
        std::string text = tfm::lexical_table(source, target, tokenizer, opt);
        tfm::Output out = output == "-" ? tfm::Output(STDOUT_FILENO) : tfm::Output::create_file(output);
        if (binary) text = tfm::marian_binary_shortlist(text, tokenizer, config, first, opt.best, opt.threshold);
        out.write(text);
        out.flush();
    });
}
