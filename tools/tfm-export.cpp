// tfm-export: a clean copy of a model directory (config, weights, tokenizer; no checkpoints or
// logs), with the weights stored as F32, F16, BF16 or int8 (weight matrices as int8 rows with a
// scale per row, about a quarter of F32): how a trained model is shipped. --average-last K
// exports the mean of the directory's last K training checkpoints instead of its model.
#include <sys/stat.h>

#include "common/checks.hpp"
#include "common/tool.hpp"
#include "common/weights_dtype_option.hpp"
#include "tfm/base/error.hpp"
#include "tfm/import/marian.hpp"
#include "tfm/io/dir_guard.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/train/checkpoint.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-export", "Copy a model directory's model, tokenizer and config, weights as F32, F16, BF16 or int8.",
        "  tfm-export -m runs/de-en -o share/models/de-en --dtype f16\n"
        "  echo 'Ein Hund rennt.' | tfm-translate -m share/models/de-en\n"
        "  tfm-export -m runs/de-en -o de-en-int8 --dtype int8   # a quarter of f32\n"
        "  tfm-export -m runs/de-en -o de-en-avg4 --average-last 4  # the mean of the last 4 checkpoints\n"
        "  tfm-translate -m de-en-int8 --compute-type int8 < test.de\n");
    CLI::App& app = tool.app();
    std::string in, out, dtype = "f32";
    std::size_t average = 0;
    app.add_option("-m,--model", in, "Model directory to export (or a Marian release: see tfm-marian)")->required();
    app.add_option("-o,--output", out, "Directory to write (created whole when the export succeeds; must be empty or absent)")->required();
    tfm::tool::add_weights_dtype_option(app, dtype);
    app.add_option("--average-last", average,
                   "Export the mean of the model directory's last K training checkpoints (DIR/checkpoints, as "
                   "tfm-train --average-last makes it) instead of its model")
        ->check(tfm::tool::in_range(1, 1 << 20));
    return tool.run(argc, argv, [&] {
        struct stat st {};
        if (::stat((out + "/config.json").c_str(), &st) == 0)
            throw tfm::UsageError(out + " already holds a model");
        const std::string upper = tfm::tool::weights_dtype(dtype);
        if (!tfm::path_present(in + "/config.json") && tfm::path_present(in + "/decoder.yml")) {
            // a Marian release: what tfm-marian import does
            if (average) throw tfm::UsageError("--average-last: a Marian release has no tfm checkpoints");
            return tfm::import_marian(in, out, upper);
        }
        tfm::ModelDir md = tfm::load_model_dir(in);  // everything checked before anything is written
        if (average) {
            const auto paths = tfm::latest_checkpoints(in, average);
            if (paths.size() < average)
                throw tfm::Error(in + " holds " + std::to_string(paths.size()) + " checkpoints, fewer than --average-last " +
                                 std::to_string(average));
            tfm::Model mean = tfm::average_checkpoints(paths);
            if (!tfm::same_architecture(mean.config, md.model.config))
                throw tfm::Error(paths.front() + ": another architecture than " + in + "/config.json");
            md.model = std::move(mean);
        }
        // Written beside -o and moved in whole: a failure, a full disk or a signal leaves nothing.
        tfm::StagedDir staged(out, false);
        staged.fill([&](const std::string& dir) {
            tfm::copy_tokenizer(in, dir);
            tfm::save_model(dir, md.model, upper);
            if (md.generation.present()) tfm::save_generation_config(dir, md.generation, md.model.config);
        });
        staged.commit();
    });
}
