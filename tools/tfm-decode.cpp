// tfm-decode: one encoder memory [S,D] per record -> one line of text per record, in order.
#include <unistd.h>

#include <exception>
#include <optional>

#include "common/compute_type_option.hpp"
#include "common/decode_flags.hpp"
#include "common/model_option.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/window.hpp"
#include "tfm/decode/aligned_lines.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/io/stream.hpp"

namespace {

// A record as a memory [S,D] for the model's D.
xt::xtensor<float, 2> memory_of(tfm::Record rec, std::size_t d, std::size_t index) {
    tfm::FloatArray a = tfm::as_float(std::move(rec));
    if (a.dimension() != 2 || a.shape(1) != d)
        throw tfm::record_error(index, "memory " + tfm::shape_of(a) + " does not fit the model: expected [S," +
                                           std::to_string(d) + "]");
    auto m = xt::xtensor<float, 2>::from_shape({a.shape(0), d});
    std::copy(a.begin(), a.end(), m.begin());
    return m;
}

// How the source lines spell their tokens, cut as tfm-encode cut them to their memories'
// rows; a line with fewer tokens than its memory is not the line that was encoded.
std::vector<std::vector<tfm::TokenSpelling>> spell_sources(const tfm::ModelDir& md, const std::vector<std::string>& lines,
                                                           const std::vector<xt::xtensor<float, 2>>& memories,
                                                           std::size_t first) {
    std::vector<std::vector<tfm::TokenSpelling>> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::size_t rows = memories[i].shape(0);
        tfm::SourceIds s = tfm::source_ids(md.tokenizer, lines[i], md.model.config, rows, true);
        if (s.ids.size() != rows)
            throw tfm::Error("--source-text line " + std::to_string(first + i + 1) + ": " + std::to_string(s.ids.size()) +
                             " tokens, but its memory has " + std::to_string(rows) +
                             " (give the lines tfm-encode read, with their language code)");
        out.push_back(std::move(s.spellings));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-decode", "Decode encoder memories with greedy or beam search: one line per record.",
        "  echo 'ein Haus am See' | tfm-encode -m model | tfm-decode -m model\n"
        "  tfm-decode -m model --beam 1 < memory.npy            # greedy\n"
        "  tfm-decode -m model --n-best 4 --beam 4 < memory.npy  # 'index ||| text ||| F0= ... ||| score'\n");
    CLI::App& app = tool.app();
    tool.rename_option("--ids", "--output-ids");
    std::string model_dir, source_text;
    tfm::tool::DecodeFlags flags;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_decode_flags(app, flags);
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
        const std::size_t d = md.model.config.d_model;
        tfm::Input in(STDIN_FILENO);
        tfm::TensorReader reader(in);
        tfm::Output out(STDOUT_FILENO);
        const tfm::OutputFormat format = flags.output_format();
        const std::size_t window = tfm::tool::read_ahead(flags);
        std::optional<tfm::PrefixReader> prefixes;
        if (!flags.prefix_file.empty()) prefixes.emplace(flags.prefix_file, md.tokenizer, md.model.config);
        if (flags.replace_unk && source_text.empty())
            throw tfm::UsageError("--replace-unk copies from the source text: give it with --source-text FILE");
        if (!flags.replace_unk && !source_text.empty())
            throw tfm::UsageError("--source-text is what --replace-unk copies from; without it, it is not read");
        std::optional<tfm::AlignedLines> sources;
        if (!source_text.empty()) sources.emplace(source_text, "source text");
        tfm::WindowReader<xt::xtensor<float, 2>> windows;
        auto read_memory = [&](std::vector<xt::xtensor<float, 2>>& into) {
            auto rec = reader.next();
            if (!rec) return false;
            into.push_back(memory_of(std::move(*rec), d, reader.records_read() - 1));
            return true;
        };
        for (;;) {
            const std::size_t first = reader.records_read();
            auto memories = windows.next(window, read_memory, [&] { return in.ready(); });
            if (memories.empty()) break;
            opt.first_index = first;
            if (prefixes) opt.prefixes = prefixes->next(memories.size());
            std::vector<std::vector<tfm::TokenSpelling>> spellings;
            if (sources) spellings = spell_sources(md, sources->next(memories.size()), memories, first);
            auto results = tfm::decode_memories(md.model, memories, opt);
            for (std::size_t i = 0; i < results.size(); ++i)
                out.write(tfm::format_hypotheses(first + i, results[i], md.tokenizer, format,
                                                       sources ? &spellings[i] : nullptr));
            out.flush();  // the window's lines go now: a reader on a quiet pipe need not wait
        }
        if (prefixes) prefixes->finish();
        if (sources) sources->finish();
    });
}
