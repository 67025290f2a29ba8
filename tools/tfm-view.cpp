// tfm-view: one self-contained HTML page to explore attention on a sentence (head, model,
// matrix and step views), from a translation or BERT model, or from tfm-attend's
// computation on tensors read from stdin.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/attention_flags.hpp"
#include "common/checks.hpp"
#include "common/decode_flags.hpp"
#include "common/input_options.hpp"
#include "common/labels.hpp"
#include "common/model_option.hpp"
#include "common/shared_options.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/io/stream.hpp"
#include "tfm/io/tensor_file.hpp"
#include "tfm/decode/generation_settings.hpp"
#include "tfm/view/page.hpp"

namespace {

constexpr std::size_t kMaxLineBytes = std::size_t(16) << 20;

// The one sentence on stdin: blank lines are skipped; none, or more than one, is a usage error.
std::string one_line() {
    tfm::LineReader lines("-");
    std::string line, found;
    std::size_t count = 0;
    while (lines.next(line, kMaxLineBytes)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (++count == 1) found = line;
    }
    if (count == 0) throw tfm::UsageError("no sentence on stdin: tfm-view shows one line");
    if (count > 1)
        throw tfm::UsageError("stdin has " + std::to_string(count) +
                              " lines: tfm-view shows one (pick one, e.g. sed -n 3p file | tfm-view ...)");
    if (!found.empty() && found.back() == '\r') found.pop_back();
    return found;
}

// A page of NaN shows nothing: a record must be finite (the error names the first bad value).
void check_finite_record(const tfm::FloatArray& a, std::size_t index, const std::string& what) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!std::isfinite(a.data()[i]))
            throw tfm::record_error(index, std::string(std::isnan(a.data()[i]) ? "a NaN" : "an Inf") + " in " + what +
                                               " at " + tfm::index_str(i, tfm::Shape(a.shape().begin(), a.shape().end())) +
                                               ": the values must be finite");
}

// A record seen as one sequence [T,D] ([1,T,D] too).
tfm::FloatArray one_sequence(tfm::Record r, std::size_t index, const char* what) {
    tfm::FloatArray a = tfm::as_float(std::move(r));
    if (a.dimension() == 3 && a.shape(0) == 1) a.reshape({a.shape(1), a.shape(2)});
    if (a.dimension() != 2)
        throw tfm::record_error(index, std::string(what) + " must be one sequence [T,D], got " + tfm::shape_of(a) +
                                           " (tfm-view shows one sequence)");
    if (a.shape(0) == 0 || a.shape(1) == 0) throw tfm::record_error(index, std::string(what) + " is empty");
    check_finite_record(a, index, what);
    return a;
}

tfm::AttentionView view_of_tensors(const tfm::tool::AttentionFlags& f, std::size_t max_tokens,
                                   std::vector<std::string>& notes) {
    using Inputs = tfm::tool::AttentionInputs;
    tfm::Input in(STDIN_FILENO);
    tfm::TensorReader reader(in);
    const bool self = f.inputs == Inputs::Self;
    tfm::FloatArray q = one_sequence(reader.expect(self ? "X [T,D]" : "queries [T,D]"), 0, self ? "X" : "Q");
    std::optional<tfm::FloatArray> k, v;
    if (!self) k = one_sequence(reader.expect(f.inputs == Inputs::Cross ? "memory" : "K"), 1, "K");
    if (f.inputs == Inputs::Qkv) v = one_sequence(reader.expect("V"), 2, "V");
    if (reader.next())
        throw tfm::UsageError("stdin holds more records than one sequence: tfm-view shows one (tfm-cat picks records)");
    const std::size_t d = q.shape(1);
    for (const auto* o : {k ? &*k : nullptr, v ? &*v : nullptr})
        if (o && o->shape(1) != d)
            throw tfm::UsageError("widths differ: the queries have D=" + std::to_string(d) + ", another record " +
                                  std::to_string(o->shape(1)));
    if (k && v && k->shape(0) != v->shape(0))
        throw tfm::UsageError("V has " + std::to_string(v->shape(0)) + " rows but K has " + std::to_string(k->shape(0)));
    auto cut = [&](tfm::FloatArray& a, const char* what) {
        if (a.shape(0) <= max_tokens) return;
        notes.push_back(std::string(what) + " cut to " + std::to_string(max_tokens) + " rows (it has " +
                        std::to_string(a.shape(0)) + "); --max-tokens raises the cap");
        tfm::FloatArray b = tfm::FloatArray::from_shape({max_tokens, a.shape(1)});
        std::copy_n(a.data(), b.size(), b.data());
        a = std::move(b);
    };
    cut(q, self ? "X" : "Q");
    if (k) cut(*k, "K");
    if (v) cut(*v, "V");
    const tfm::MultiHeadParams params = tfm::tool::attention_params(f, d);
    const tfm::FloatArray& kx = k ? *k : q;
    const tfm::FloatArray& vx = v ? *v : kx;
    const std::size_t tk = kx.shape(0);
    return tfm::view_attention(tfm::mat(q.data(), q.shape(0), d), tfm::mat(kx.data(), tk, d),
                               tfm::mat(vx.data(), tk, d), tk, f.layer.attention, params, self);
}


// Weights records [H,Tq,Tk] (one per layer) from stdin, labelled by FILE's first line (the keys,
// and the queries when as many) and second line (the queries), as tfm-plot reads --labels.
// More than max_tokens queries or keys: the first max_tokens of each kept (a note says so).
tfm::AttentionView view_of_weights(const std::string& labels_file, std::size_t max_tokens, std::vector<std::string>& notes) {
    constexpr std::size_t kMaxLayers = 1024, kMaxValues = std::size_t(1) << 25;  // a page a browser can hold
    std::size_t values = 0;
    tfm::Input in(STDIN_FILENO);
    tfm::TensorReader reader(in);
    std::vector<tfm::ViewArray> layers;
    std::size_t full_q = 0, full_k = 0;
    while (auto r = reader.next()) {
        if (layers.size() == kMaxLayers)
            throw tfm::UsageError("more than " + std::to_string(kMaxLayers) + " records of weights: tfm-view shows one layer per record");
        tfm::FloatArray a = tfm::as_float(std::move(*r));
        check_finite_record(a, reader.records_read() - 1, "the weights");
        if (a.dimension() == 2) a.reshape({1, a.shape(0), a.shape(1)});
        if (a.dimension() != 3)
            throw tfm::record_error(reader.records_read() - 1, "attention weights must be [H,Tq,Tk] or [Tq,Tk], got " +
                                                                   tfm::shape_of(a));
        const std::size_t h = a.shape(0), tq = a.shape(1), tk = a.shape(2), cq = std::min(tq, max_tokens),
                          ck = std::min(tk, max_tokens);
        if (!layers.empty() && (tq != full_q || tk != full_k))
            throw tfm::record_error(reader.records_read() - 1, "weights " + tfm::shape_of(a) + " of another size than record 0's");
        full_q = tq, full_k = tk;
        values += h * cq * ck;
        if (values > kMaxValues)
            throw tfm::UsageError("more than " + std::to_string(kMaxValues) + " weights to show (record " +
                                  std::to_string(reader.records_read()) + " is " + tfm::shape_of(a) +
                                  "): a page that large would not open; --max-tokens cuts each record");
        tfm::ViewArray v{{h, cq, ck}, std::vector<float>(h * cq * ck)};
        for (std::size_t x = 0; x < h; ++x)
            for (std::size_t i = 0; i < cq; ++i)
                std::copy_n(a.data() + (x * tq + i) * tk, ck, v.values.data() + (x * cq + i) * ck);
        layers.push_back(std::move(v));
    }
    if (full_q > max_tokens || full_k > max_tokens)
        notes.push_back("the weights cut to their first " + std::to_string(max_tokens) + " queries and keys (they have " +
                        std::to_string(full_q) + " and " + std::to_string(full_k) + "); --max-tokens raises the cap");
    if (layers.empty()) throw tfm::UsageError("no attention weights on stdin");
    std::vector<std::string> keys, queries;
    if (!labels_file.empty()) {
        tfm::LineReader lines(labels_file);
        std::string line;
        if (lines.next(line, kMaxLineBytes)) keys = tfm::tool::label_words(line);
        if (lines.next(line, kMaxLineBytes)) queries = tfm::tool::label_words(line);
        const std::size_t tq = full_q;
        if (queries.size() != tq) queries = keys.size() == tq ? keys : std::vector<std::string>{};
        auto cut = [&](std::vector<std::string>& l) { if (l.size() > max_tokens) l.resize(max_tokens); };
        cut(keys);
        cut(queries);
    }
    return tfm::view_weights(layers, std::move(queries), std::move(keys));
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-view", "An HTML page to explore attention on one sentence: head, model, matrix and step views.",
        "  echo 'Ein Mann fährt Fahrrad.' | tfm-view -m multi30k-de-en -o view.html\n"
        "  echo 'The cat sat.' | tfm-view -m bert-base-uncased --step-layer 3 -o bert.html\n"
        "  tfm-posenc -n 12 -d 64 | tfm-view --attend --heads 4 --causal --proj random --seed 1 -o attend.html\n");
    CLI::App& app = tool.app();
    std::string model_dir, output = "-", precision = "auto";
    tfm::ViewOptions vo;
    tfm::tool::LanguageFlags langs;
    tfm::tool::AttentionFlags attend;
    tfm::tool::DecodeFlags flags;
    bool attend_mode = false;
    int threads = 0;
    tfm::tool::add_model_option(app, model_dir);
    app.add_option("-o,--output", output, "The HTML file to write ('-': stdout, the default)");
    app.add_option("--step-layer", vo.step_layer, "The layer the step view walks through (0-based; default 0)")
        ->check(tfm::tool::in_range(0, tfm::tool::kMaxDim));
    app.add_option("--max-tokens", vo.max_tokens,
                   "Tokens shown per side (default 64): a longer input is cut, and the page and stderr say so")
        ->check(tfm::tool::in_range(1, 1024));
    app.add_option("--precision", precision,
                   "Numbers in the page: float32, float16 (vectors float16, weights 16-bit: half the size) or auto "
                   "(float32 while the page stays under about 2 MB; the default)")
        ->check(CLI::IsMember({"auto", "float32", "float16"}));
    app.add_option("--beam", flags.beam, "Beam size of the translation shown (default: the model's, else 4)")
        ->check(tfm::tool::in_range(1, 64));
    tfm::tool::add_language_options(app, langs);
    auto* attend_opt = app.add_flag("--attend", attend_mode,
                                    "Tensors on stdin, as tfm-attend reads them (X [T,D]; with --cross Q and memory; "
                                    "with --qkv Q, K, V), instead of a model and a sentence");
    tfm::tool::add_attention_flags(app, attend);
    bool weights_mode = false;
    std::string labels_file;
    auto* weights_opt = app.add_flag("--weights", weights_mode,
                                     "Attention weights on stdin, one record [H,Tq,Tk] per layer (tfm-encode "
                                     "--attention-out, tfm-attend --weights-out): the head, model and matrix views");
    weights_opt->excludes(attend_opt);
    app.add_option("--labels", labels_file,
                   "Token labels (with --weights): the first line the keys' (columns') labels, and the queries' "
                   "when the counts match, a second line the queries' (read once stdin has ended, so the tool "
                   "upstream may write it)")
        ->needs(weights_opt);  // read once the weights have ended, as tfm-plot does: a pipe may write it
    tfm::tool::add_threads_option(app, threads);

    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(threads);
        const tfm::PagePrecision prec = tfm::parse_page_precision(precision);
        for (const char* o : {"--heads", "--cross", "--qkv", "--causal", "--proj", "--seed", "--params", "--prefix",
                              "--shared-kv", "--no-scale", "--additive", "--additive-dim"})
            if (!attend_mode && app.count(o)) throw tfm::UsageError(std::string(o) + " describes the attention of --attend");
        if (output == "-" && isatty(STDOUT_FILENO))
            throw tfm::UsageError("the page is HTML: give -o FILE, or redirect stdout to a file");
        tfm::AttentionView view;
        std::vector<std::string> notes;
        if (weights_mode || attend_mode)
            for (const char* o : {"--model", "--beam", "--source-lang", "--target-lang", "--step-layer"})
                if (app.count(o))
                    throw tfm::UsageError(std::string(o) + " is for a model, not " + (attend_mode ? "--attend" : "--weights"));
        if (weights_mode) {
            view = view_of_weights(labels_file, vo.max_tokens, notes);
            view.notes.insert(view.notes.begin(), notes.begin(), notes.end());
        } else if (attend_mode) {
            tfm::tool::finish_attention_flags(attend);
            view = view_of_tensors(attend, vo.max_tokens, notes);
            view.notes.insert(view.notes.begin(), notes.begin(), notes.end());
        } else {
            const std::string dir = tfm::tool::model_dir_or_default(model_dir);
            if (tfm::is_bert_dir(dir)) {
                for (const char* o : {"--beam", "--source-lang", "--target-lang"})
                    if (app.count(o)) throw tfm::UsageError(std::string(o) + " is for translation models, not BERT-layout ones");
                const tfm::BertDir bd = tfm::load_bert_dir(dir);
                view = tfm::view_bert(bd, one_line(), vo);
            } else {
                tfm::ModelDir md = tfm::load_model_dir(dir);
                vo.decode.search.beam = flags.beam;  // the tools' defaults, then the model's own settings
                vo.decode.search.alpha = flags.alpha;
                vo.decode.search.penalty = tfm::parse_length_penalty(flags.penalty);
                tfm::apply_generation(vo.decode, md.generation, {app.count("--beam") > 0, false, false, false});
                const tfm::tool::Languages languages =
                    tfm::tool::apply_languages(md, langs, [&](const std::string& w) { tool.warn(w); });
                if (languages.forced) vo.decode.forced_first_all = languages.forced;
                view = tfm::view_translation(md, languages.prefix + one_line(), vo);
            }
        }
        for (const std::string& n : view.notes) tool.warn(n);
        const tfm::Page page = tfm::explorer_page(view, prec);
        if (output == "-") {
            tfm::Output out(STDOUT_FILENO);
            out.write(page.html);
            out.flush();
        } else {
            tfm::write_file_atomic(output, page.html);
        }
    });
}
