// tfm-marian: converts between Marian's own model files (an OPUS-MT release: decoder.yml,
// *.npz, *.vocab.yml, source.spm, target.spm) and tfm model directories, both ways.
#include "common/tool.hpp"
#include "common/weights_dtype_option.hpp"
#include "tfm/base/error.hpp"
#include "tfm/import/marian.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-marian", "Convert Marian models (OPUS-MT release zips, unpacked) to tfm model directories and back.",
        "  unzip opus-2020-02-26.zip -d opus-de-en && tfm-marian import opus-de-en -o de-en\n"
        "  echo 'Guten Morgen.' | tfm-translate -m de-en\n"
        "  tfm-marian export -m de-en -o de-en.marian   # model.npz, vocab.yml, decoder.yml for marian-decoder\n");
    CLI::App& app = tool.app();
    app.require_subcommand(1);
    std::string in, out, dtype = "f32", model;
    bool force = false;
    CLI::App* imp = app.add_subcommand("import", "Marian release directory -> tfm model directory");
    imp->add_option("marian_dir", in, "Directory holding decoder.yml (or one *.npz and *.vocab.yml), source.spm, target.spm")
        ->required();
    imp->add_option("-o,--output", out, "Model directory to write (must not exist yet)")->required();
    imp->add_flag("--force", force, "Replace what the output directory holds");
    tfm::tool::add_weights_dtype_option(*imp, dtype);
    CLI::App* exp = app.add_subcommand("export", "tfm model directory -> Marian model files");
    exp->add_option("-m,--model", model, "Model directory (an OPUS-MT-shaped one: vocab.json, pad last)")->required();
    exp->add_option("-o,--output", out, "Directory to write (must not exist yet)")->required();
    exp->add_flag("--force", force, "Replace what the output directory holds");
    return tool.run(argc, argv, [&] {
        if (imp->parsed()) {
            const std::string upper = tfm::tool::weights_dtype(dtype);
            tfm::import_marian(in, out, upper, force);
        } else {
            tfm::export_marian(model, out, force);
        }
    });
}
