// tfm-score: the model's log-probability of given translations, one line per pair, in order:
// to filter noisy parallel data or rerank n-best lists (marian-scorer, CTranslate2's
// score_batch, fairseq's --score-reference).
#include <unistd.h>

#include "common/checks.hpp"
#include "common/compute_type_option.hpp"
#include "common/decode_flags.hpp"
#include "common/model_option.hpp"
#include "common/input_options.hpp"
#include "common/shared_options.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/scorer.hpp"
#include "tfm/decode/output_format.hpp"
#include "tfm/decode/pair_reader.hpp"
#include "tfm/model/model_dir.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-score", "Score translations: the model's log-probability of each target given its source.",
        "  tfm-score -m model test.de test.en > scores.txt\n"
        "  paste src.txt tgt.txt | tfm-score -m model --normalize | paste - src.txt tgt.txt | sort -g | head\n"
        "  tfm-score -m model --tokens src.txt hyp.txt    # each token's log-probability after a tab\n"
        "  tfm-score -m model --alignment hard src.txt ref.txt   # 'score ||| 0-0 1-2 ...' (forced alignment)\n");
    CLI::App& app = tool.app();
    std::string model_dir, source = "-", target;
    tfm::tool::LanguageFlags langs;
    bool normalize = false, tokens = false, ids = false;
    std::size_t batch = 32, window = 0;
    int threads = 0;
    std::string compute_type;
    tfm::tool::AlignmentFlags alignment;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_alignment_flags(app, alignment);
    tfm::tool::add_compute_type_option(app, compute_type);
    tfm::tool::add_language_options(app, langs);
    app.add_option("source", source, "Source lines (gzip ok); without TARGET: 'source<TAB>target' lines (default: stdin)");
    app.add_option("target", target, "Target lines, line-aligned with SOURCE");
    tfm::tool::add_input_ids_flag(app, ids);
    tool.rename_option("--ids", "--input-ids");
    app.add_flag("--normalize", normalize, "Print the mean log-probability per target token (eos counted), not the sum");
    app.add_flag("--tokens", tokens, "After the score, a tab and each target token's log-probability (eos last)");
    tfm::tool::add_batch_options(app, batch, window);
    tfm::tool::add_threads_option(app, threads);
    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(threads);
        tfm::ModelDir md = tfm::load_model_dir(tfm::tool::model_dir_or_default(model_dir), tfm::tool::compute_type(compute_type));
        const auto attention = alignment.attention();
        const tfm::tool::Languages languages =
            tfm::tool::apply_languages(md, langs, [&](const std::string& w) { tool.warn(w); });
        tfm::PairReader reader(source, target, md.tokenizer, md.model.config, ids, languages.prefix);
        if (md.tokenizer.has_language_tokens() && !ids) {
            reader.target_language = languages.forced ? *languages.forced : md.generation.forced_bos_token_id.value_or(-1);
            if (reader.target_language < 0)
                throw tfm::UsageError("--target-lang: this model's targets start with their language's token; name "
                                      "the language (tfm-info --target-languages lists them)");
        }
        tfm::Output out(STDOUT_FILENO);
        const std::size_t w = tfm::tool::read_ahead(window, batch);
        for (;;) {
            const auto pairs = reader.next_window(w);
            if (pairs.empty()) break;
            std::vector<std::vector<std::int64_t>> srcs, tgts;
            for (const auto& p : pairs) {
                srcs.push_back(p.source);
                tgts.push_back(p.target);
            }
            std::string text;
            for (const auto& s : tfm::score_targets(md.model, srcs, tgts, batch, attention ? &*attention : nullptr))
                text += tfm::format_score(s, normalize, tokens, alignment.mode);
            out.write(text);
            out.flush();  // the window's scores go now: a reader on a quiet pipe need not wait
        }
    });
}
