// tfm-encode: text lines -> one encoder memory [S,D] per line, in input order.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/compute_type_option.hpp"
#include "common/input_options.hpp"
#include "common/shared_options.hpp"
#include "common/model_option.hpp"
#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/decode/bert_encoder.hpp"
#include "tfm/decode/bert_reader.hpp"
#include "tfm/decode/source_reader.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/io/stream.hpp"

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-encode",
        "Encode text lines with a Transformer encoder (a translation model's, or a BERT-layout model): one record "
        "[S,D] of token vectors per line, or with --pool one sentence vector [D].",
        "  echo 'ein Haus am See' | tfm-encode -m model | tfm-decode -m model\n"
        "  tfm-encode -m model < src.txt > memory.npy\n"
        "  tfm-encode -m model --attention-out attn.npy --attention-layers 5 < one.txt > /dev/null\n"
        "  echo 'Ein Hund rennt.' | tfm-encode --attention-out - --pieces-out tok.txt | tfm-plot -o att.svg --labels tok.txt\n"
        "  tfm-encode -m bert-dir --pool mean < corpus.txt > corpus.npy      # sentence vectors\n"
        "  paste a.txt b.txt | tfm-encode -m bert-dir --pairs --pool cls > pairs.npy\n");
    CLI::App& app = tool.app();
    tfm::tool::LanguageFlags langs;
    std::string model_dir, attention_out, layers_spec = "all", pieces_out;
    bool ids = false, strict = false, pairs = false;
    std::string pool, compute_type;
    std::size_t max_input = 0;
    std::size_t batch = 32, window = 0;
    int threads = 0;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_language_options(app, langs);
    tfm::tool::add_input_ids_flag(app, ids);
    tool.rename_option("--ids", "--input-ids");
    tfm::tool::add_input_limit_options(app, max_input, strict);
    auto* att = app.add_option("--attention-out", attention_out,
                               "Also write each line's self-attention weights [H,S,S] to FILE, one record per chosen "
                               "layer ('-': to stdout, instead of the memories)");
    app.add_option("--attention-layers", layers_spec, "Layers for --attention-out: 'all' or e.g. 0,5 (0-based)")->needs(att);
    app.add_option("--pieces-out", pieces_out,
                   "Write each line's source pieces to FILE (one line per line, or per attention record with "
                   "--attention-out): labels for tfm-plot");
    tfm::tool::add_batch_options(app, batch, window);
    tfm::tool::add_threads_option(app, threads);
    app.add_option("--pool", pool,
                   "One sentence vector [D] per line instead of the token vectors: cls (the first token's), mean "
                   "(over the line's tokens), or pooler (BERT's tanh(W h_CLS + b))")
        ->check(CLI::IsMember({"cls", "mean", "pooler"}));
    app.add_flag("--pairs", pairs, "BERT models: each line is two texts separated by a tab, segments 0 and 1");
    tfm::tool::add_compute_type_option(app, compute_type);
    tool.add_format_flags();

    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(threads);
        const std::string dir = tfm::tool::model_dir_or_default(model_dir);
        const bool bert = tfm::is_bert_dir(dir);
        if (!bert && pairs) throw tfm::UsageError("--pairs is for BERT-layout models (segments 0 and 1)");
        if (bert && ids) throw tfm::UsageError("--input-ids is not for BERT-layout models: give text");
        if (bert && !compute_type.empty()) throw tfm::UsageError("--compute-type is for translation models, not BERT-layout ones");
        if (bert && (!langs.target.empty() || !langs.source.empty()))
            throw tfm::UsageError(std::string(langs.target.empty() ? "--source-lang" : "--target-lang") +
                                  " is for multilingual translation models");
        std::optional<tfm::ModelDir> md;
        std::optional<tfm::BertDir> bd;
        if (bert) bd.emplace(tfm::load_bert_dir(dir));
        else md.emplace(tfm::load_model_dir(dir, tfm::tool::compute_type(compute_type)));
        const tfm::ModelConfig& c = bert ? bd->model.config : md->model.config;
        const tfm::Linear* pooler = bert && bd->model.pooler ? &*bd->model.pooler : nullptr;
        std::optional<tfm::BertPooling> pooling;
        if (!pool.empty()) pooling = tfm::parse_pooling(pool);
        if (pooling == tfm::BertPooling::Pooler && !pooler)
            throw tfm::UsageError("--pool pooler: this model has no pooler weights (use cls or mean)");
        std::optional<tfm::EncodedCapture> capture;
        std::optional<tfm::Output> att_out;
        std::optional<tfm::TensorWriter> att_writer;
        if (!attention_out.empty()) {
            capture.emplace();
            if (layers_spec == "all") {
                for (std::size_t l = 0; l < c.encoder_layers; ++l) capture->layers.push_back(l);
            } else {
                capture->layers = tfm::tool::option_range("--attention-layers", layers_spec, 0);  // distinct
            }
            for (std::size_t l : capture->layers)
                if (l >= c.encoder_layers)
                    throw tfm::UsageError("--attention-layers " + std::to_string(l) + ": the encoder has " +
                                          std::to_string(c.encoder_layers) + " layers (0-based)");
            if (attention_out != "-") {
                att_out.emplace(tfm::Output::create_file(attention_out));
                att_writer.emplace(*att_out, tfm::Format::Npy);
            }
        }
        std::optional<tfm::Output> pieces;
        if (!pieces_out.empty()) pieces.emplace(tfm::Output::create_file(pieces_out));
        tfm::Input in(STDIN_FILENO);
        tfm::Output out(STDOUT_FILENO);
        tfm::TensorWriter writer(out, tool.output_format());
        tfm::TensorWriter& att_to = att_writer ? *att_writer : writer;  // "-": attention on stdout
        const bool memories_out = attention_out != "-";
        auto warn = [&](const std::string& w) { tool.warn(w); };
        std::optional<tfm::SourceReader> reader;
        std::optional<tfm::BertReader> bert_reader;
        if (bert) {
            bert_reader.emplace(in, bd->tokenizer, c.max_positions, pairs, strict, max_input, warn);
        } else {
            reader.emplace(in, md->tokenizer, c, ids, strict, warn);
            const tfm::tool::Languages languages = tfm::tool::apply_languages(*md, langs, warn);
            if (languages.forced)
                throw tfm::UsageError("--target-lang " + langs.target + ": on this model the target language is "
                                      "chosen when decoding: give it to tfm-decode (or use tfm-translate)");
            reader->prefix = languages.prefix;
            reader->max_tokens = max_input;
        }
        const std::size_t w = tfm::tool::read_ahead(window, batch);
        for (;;) {
            // The window's token ids and their records: memories [S,D] (and attention).
            std::vector<std::vector<std::int64_t>> sources;
            std::vector<xt::xtensor<float, 2>> memories;
            if (bert) {
                const auto inputs = bert_reader->next_window(w);
                for (const auto& input : inputs) sources.push_back(input.ids);
                if (!inputs.empty())
                    memories = tfm::encode_bert(bd->model, inputs, bd->tokenizer.pad_id(), batch, capture ? &*capture : nullptr);
            } else {
                sources = reader->next_window(w);
                if (!sources.empty()) memories = tfm::encode_sources(md->model, sources, batch, capture ? &*capture : nullptr);
            }
            if (sources.empty()) break;
            for (std::size_t i = 0; i < memories.size(); ++i) {
                if (memories_out && pooling) {  // one [D] vector per line; [0] for an empty line
                    const auto& m = memories[i];
                    auto v = xt::xtensor<float, 1>::from_shape({m.shape(0) ? c.d_model : 0});
                    if (m.shape(0)) tfm::pool(v.data(), tfm::mat(m.data(), m.shape(0), c.d_model), *pooling, pooler);
                    writer.write(v);
                } else if (memories_out) {
                    writer.write(memories[i]);
                }
                if (capture)
                    for (const auto& wt : capture->weights[i]) att_to.write(wt);
                if (pieces) {
                    std::string line;
                    for (std::size_t j = 0; j < sources[i].size(); ++j)
                        line += (j ? " " : "") + (bert ? bd->tokenizer.piece(sources[i][j]) : md->tokenizer.source_piece(sources[i][j]));
                    for (std::size_t k = 0; k < (capture ? capture->weights[i].size() : 1); ++k) pieces->write(line + "\n");
                }
            }
            out.flush();  // the window's records go now: a reader on a quiet pipe need not wait
        }
        if (att_out) att_out->close();
        if (pieces) pieces->close();
    });
}
