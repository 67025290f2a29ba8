// tfm-decode: one encoder memory [S,D] per record -> one line of text per record, in order.
#include <unistd.h>

#include <optional>

#include "common/compute_type_option.hpp"
#include "common/input_options.hpp"
#include "common/decode_flags.hpp"
#include "common/model_option.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/decode/aligned_lines.hpp"
#include "tfm/decode/memory_reader.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/base/parallel.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-decode", "Decode encoder memories with greedy or beam search: one line per record.",
        "  echo 'ein Haus am See' | tfm-encode -m model | tfm-decode -m model\n"
        "  tfm-decode -m model --beam 1 < memory.npy            # greedy\n"
        "  tfm-decode -m model --n-best 4 --beam 4 < memory.npy  # 'index ||| text ||| F0= ... ||| score'\n"
        "  tfm-encode -m nllb --source-lang deu_Latn < de.txt | tfm-decode -m nllb --target-lang eng_Latn\n");
    CLI::App& app = tool.app();
    tool.rename_option("--ids", "--output-ids");
    std::string model_dir, source_text, target_lang;
    tfm::tool::DecodeFlags flags;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_decode_flags(app, flags);
    tfm::tool::add_target_lang_option(app, target_lang);
    std::string compute_type;
    tfm::tool::add_compute_type_option(app, compute_type);
    app.add_option("--source-text", source_text,
                   "The source lines the memories were encoded from, one per record, as tfm-encode read them "
                   "(with any language code): what --replace-unk copies from");

    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(flags.threads);
        tfm::DecodeOptions opt = tfm::tool::decode_options(flags);
        tfm::ModelDir md = tfm::load_model_dir(tfm::tool::model_dir_or_default(model_dir), tfm::tool::compute_type(compute_type));
        tfm::tool::apply_generation(opt, flags, md.generation);
        if (!target_lang.empty()) {
            if (!md.tokenizer.has_language_tokens())
                throw tfm::UsageError("--target-lang " + target_lang + ": this model reads its target code from the "
                                      "source: give --target-lang to tfm-encode");
            opt.forced_first_all = md.tokenizer.language_id(target_lang, "--target-lang");
        } else if (md.tokenizer.has_language_tokens() && !opt.forced_first_all) {
            tool.warn("no --target-lang: the first output token, the target language's, is not forced");
        }
        tfm::Input in(STDIN_FILENO);
        tfm::MemoryReader reader(in, md.model.config.d_model);
        tfm::Output out(STDOUT_FILENO);
        const tfm::OutputFormat format = flags.output_format();
        std::optional<tfm::PrefixReader> prefixes;
        if (!flags.prefix_file.empty()) prefixes.emplace(flags.prefix_file, md.tokenizer, md.model.config);
        if (flags.replace_unk != !source_text.empty())
            throw tfm::UsageError(flags.replace_unk ? "--replace-unk copies from the source text: give it with --source-text FILE"
                                                    : "--source-text is what --replace-unk copies from; without it, it is not read");
        std::optional<tfm::AlignedLines> sources;
        if (!source_text.empty()) sources.emplace(source_text, "source text");
        for (;;) {
            const std::size_t first = reader.records_read();
            const auto memories = reader.next_window(tfm::tool::read_ahead(flags));
            if (memories.empty()) break;
            opt.first_index = first;
            if (prefixes) opt.prefixes = prefixes->next(memories.size());
            std::vector<std::vector<tfm::TokenSpelling>> spellings;
            if (sources)
                spellings = tfm::spell_sources(md.tokenizer, md.model.config, sources->next(memories.size()), memories, first);
            auto results = tfm::decode_memories(md.model, memories, opt);
            for (std::size_t i = 0; i < results.size(); ++i)
                out.write(tfm::format_hypotheses(first + i, results[i], md.tokenizer, format, sources ? &spellings[i] : nullptr));
            out.flush();  // the window's lines go now: a reader on a quiet pipe need not wait
        }
        if (prefixes) prefixes->finish();
        if (sources) sources->finish();
    });
}
