// tfm-translate: text lines in, translations out, encoder and search in one process; the
// same lines as tfm-encode | tfm-decode with the same options.
#include <unistd.h>

#include <optional>

#include "common/compute_type_option.hpp"
#include "common/decode_flags.hpp"
#include "common/input_options.hpp"
#include "common/shared_options.hpp"
#include "tfm/decode/source_reader.hpp"
#include "common/model_option.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/decode/aligned_lines.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/base/parallel.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-translate", "Translate text lines with a Transformer model, one output line per input line.",
        "  echo 'ein Haus am See' | tfm-translate -m model\n"
        "  tfm-translate -m model --beam 4 < test.de > test.hyp.en\n"
        "  tfm-translate -m model --n-best 4 < test.de            # Moses n-best lines\n"
        "  tfm-translate -m model --alignment hard < test.de      # 'text ||| 0-0 1-2 ...'\n"
        "  tfm-translate -m model --format jsonl --alignment soft < test.de\n"
        "  tfm-translate -m model --shortlist lex.s2t 100 50 < test.de   # a vocabulary shortlist\n"
        "  tfm-translate -m nllb-200-distilled-600M --source-lang deu_Latn --target-lang fra_Latn < test.de\n");
    CLI::App& app = tool.app();
    std::string model_dir;
    tfm::tool::LanguageFlags langs;
    bool strict = false, ids_in = false;
    std::size_t max_input = 0;
    std::string compute_type;
    tfm::tool::DecodeFlags flags;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_language_options(app, langs);
    tfm::tool::add_input_limit_options(app, max_input, strict);
    tfm::tool::add_input_ids_flag(app, ids_in);
    tool.rename_option("--ids", "--output-ids");
    tfm::tool::add_decode_flags(app, flags);
    tfm::tool::add_compute_type_option(app, compute_type);
    tfm::tool::ShortlistFlags shortlist;
    tfm::tool::add_shortlist_options(app, shortlist);

    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(flags.threads);
        tfm::DecodeOptions opt = tfm::tool::decode_options(flags);
        tfm::ModelDir md = tfm::load_model_dir(tfm::tool::model_dir_or_default(model_dir), tfm::tool::compute_type(compute_type));
        tfm::tool::apply_generation(opt, flags, md.generation);
        opt.shortlist = tfm::tool::load_shortlist(shortlist, md);
        tfm::Input in(STDIN_FILENO);
        tfm::Output out(STDOUT_FILENO);
        const tfm::OutputFormat format = flags.output_format();
        auto warn = [&](const std::string& w) { tool.warn(w); };
        const tfm::tool::Languages languages = tfm::tool::apply_languages(md, langs, warn);
        if (languages.forced) opt.forced_first_all = languages.forced;
        tfm::SourceReader reader{in, md.tokenizer, md.model.config, ids_in, strict, warn};
        reader.prefix = languages.prefix;
        reader.line_targets = md.tokenizer.has_language_tokens();  // ">>code<<" lines choose their own
        reader.need_target = reader.line_targets && !opt.forced_first_all;
        reader.max_tokens = max_input;
        reader.spell = flags.replace_unk;
        std::optional<tfm::PrefixReader> prefixes;
        if (!flags.prefix_file.empty()) prefixes.emplace(flags.prefix_file, md.tokenizer, md.model.config);
        for (;;) {
            const std::size_t first = reader.lines_read;
            auto sources = reader.next_window(tfm::tool::read_ahead(flags));
            if (sources.empty()) break;
            opt.first_index = first;
            opt.forced_first = reader.targets;
            if (prefixes) opt.prefixes = prefixes->next(sources.size());
            auto results = tfm::translate_sources(md.model, sources, opt);
            for (std::size_t i = 0; i < results.size(); ++i)
                out.write(tfm::format_hypotheses(first + i, results[i], md.tokenizer, format,
                                                       reader.spell ? &reader.spellings[i] : nullptr));
            out.flush();  // the window's translations go now: a reader on a quiet pipe need not wait
        }
        if (prefixes) prefixes->finish();
    });
}
