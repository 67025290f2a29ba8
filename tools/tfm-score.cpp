// tfm-score: the model's log-probability of given translations, one line per pair, in order:
// to filter noisy parallel data or rerank n-best lists (marian-scorer, CTranslate2's
// score_batch, fairseq's --score-reference).
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <optional>

#include "common/checks.hpp"
#include "common/compute_type_option.hpp"
#include "common/decode_flags.hpp"
#include "common/model_option.hpp"
#include "common/source_lines.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/decode/scorer.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/io/text_tensor.hpp"
#include "tfm/model/model_dir.hpp"

namespace {

// Pairs from two line-aligned files, or from tab-separated lines.
class PairReader {
public:
    PairReader(const std::string& source, const std::string& target) {
        if (target.empty()) {
            tsv_.emplace(source);
        } else {
            src_.emplace(source);
            tgt_.emplace(target);
        }
    }
    // false at the end; throws for a line without a pair.
    bool next(std::string& source, std::string& target) {
        ++line_;
        if (tsv_) {
            std::string l;
            if (!tsv_->next(l)) return false;
            const std::size_t tab = l.find('\t');
            if (tab == std::string::npos) throw tfm::Error("line " + std::to_string(line_) + ": no tab between source and target");
            if (l.find('\t', tab + 1) != std::string::npos)
                throw tfm::Error("line " + std::to_string(line_) + ": more than one tab (a line is source<TAB>target)");
            source = l.substr(0, tab);
            target = l.substr(tab + 1);
            return true;
        }
        const bool s = src_->next(source), t = tgt_->next(target);
        if (s != t)
            throw tfm::Error((s ? tgt_->path() : src_->path()) + " ends after line " + std::to_string(line_ - 1) + " but " +
                             (s ? src_->path() : tgt_->path()) + " goes on");
        return s;
    }
    std::size_t line() const { return line_; }

private:
    std::optional<tfm::LineReader> tsv_, src_, tgt_;
    std::size_t line_ = 0;
};

// A line of integer ids, eos appended unless it ends with it.
std::vector<std::int64_t> ids_line(const std::string& line, std::size_t vocab, std::int64_t eos) {
    auto parsed = tfm::parse_integers(line);
    if (!parsed) throw tfm::Error("not a list of integer ids: '" + line.substr(0, 60) + "'");
    for (std::int64_t v : *parsed)
        if (v < 0 || std::size_t(v) >= vocab)
            throw tfm::Error("id " + std::to_string(v) + " is outside the vocabulary of " + std::to_string(vocab));
    if (parsed->empty() || parsed->back() != eos) parsed->push_back(eos);
    return *parsed;
}

std::string format_score(const tfm::TargetScore& s, bool normalize, bool tokens, const std::string& alignment) {
    char buf[64];
    const double v = normalize ? s.logprob / double(s.token_logprobs.size()) : s.logprob;
    std::snprintf(buf, sizeof buf, "%.6f", v);
    std::string out = buf;
    if (tokens) {
        out += '\t';
        for (std::size_t i = 0; i < s.token_logprobs.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%s%.4f", i ? " " : "", double(s.token_logprobs[i]));
            out += buf;
        }
    }
    if (!alignment.empty())  // the target's tokens without eos
        out += " ||| " + tfm::tool::alignment_text(s.attention, s.token_logprobs.size() - 1, alignment);
    return out + "\n";
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-score", "Score translations: the model's log-probability of each target given its source.",
        "  tfm-score -m model test.de test.en > scores.txt\n"
        "  paste src.txt tgt.txt | tfm-score -m model --normalize | paste - src.txt tgt.txt | sort -g | head\n"
        "  tfm-score -m model --tokens src.txt hyp.txt    # each token's log-probability after a tab\n"
        "  tfm-score -m model --alignment hard src.txt ref.txt   # 'score ||| 0-0 1-2 ...' (forced alignment)\n");
    CLI::App& app = tool.app();
    std::string model_dir, target_lang, source = "-", target;
    bool normalize = false, tokens = false, ids = false;
    std::size_t batch = 32, window = 0;
    int threads = 0;
    std::string compute_type;
    tfm::tool::AlignmentFlags alignment;
    tfm::tool::add_model_option(app, model_dir);
    tfm::tool::add_alignment_flags(app, alignment);
    tfm::tool::add_compute_type_option(app, compute_type);
    tfm::tool::add_target_lang_option(app, target_lang);
    app.add_option("source", source, "Source lines (gzip ok); without TARGET: 'source<TAB>target' lines (default: stdin)");
    app.add_option("target", target, "Target lines, line-aligned with SOURCE");
    app.add_flag("--ids", ids, "Sources and targets are lines of integer ids (eos appended unless present), not text");
    app.add_flag("--normalize", normalize, "Print the mean log-probability per target token (eos counted), not the sum");
    app.add_flag("--tokens", tokens, "After the score, a tab and each target token's log-probability (eos last)");
    app.add_option("--batch-size", batch, "Pairs per batch (default 32)")->check(tfm::tool::in_range(1, tfm::tool::kMaxBatch));
    app.add_option("--window", window, "Pairs read ahead and sorted by length (default 8 x batch size)")
        ->check(tfm::tool::in_range(1, tfm::tool::kMaxWindow));
    app.add_option("--threads", threads, "Threads (default: all CPUs, or TFM_THREADS)")
        ->check(tfm::tool::in_range(1, tfm::tool::kMaxThreads));
    return tool.run(argc, argv, [&] {
        tfm::set_num_threads(threads);
        tfm::ModelDir md = tfm::load_model_dir(tfm::tool::model_dir_or_default(model_dir), tfm::tool::compute_type(compute_type));
        const tfm::ModelConfig& c = md.model.config;
        const std::string prefix = tfm::tool::target_lang_prefix(md.tokenizer, target_lang);
        const auto attention = alignment.attention();
        PairReader reader(source, target);
        tfm::Output out(STDOUT_FILENO);
        const std::size_t w = window ? window : 8 * batch;
        for (bool more = true; more;) {
            std::vector<std::vector<std::int64_t>> srcs, tgts;
            std::exception_ptr bad;  // a bad line: the pairs before it are written first
            try {
                std::string s, t;
                while (srcs.size() < w && (more = reader.next(s, t))) {
                    std::vector<std::int64_t> sid, tid;
                    try {
                        if (ids) {
                            sid = ids_line(s, c.source_vocab(), c.eos_id);
                            tid = ids_line(t, c.target_vocab(), c.eos_id);
                        } else {
                            // A score is of the whole pair: a text past what the model's positions can
                            // spell is refused before tokenizing, so no line costs more than that.
                            const std::size_t budget = tfm::text_budget(c.max_positions);
                            for (const std::string* text : {&s, &t})
                                if (text->size() > budget)
                                    throw tfm::Error(std::string(text == &s ? "source" : "target") + " of " +
                                                     std::to_string(text->size()) + " bytes, more than the " +
                                                     std::to_string(budget) + " read for the model's " +
                                                     std::to_string(c.max_positions) + " positions");
                            sid = md.tokenizer.encode(!prefix.empty() && s.compare(0, 2, ">>") != 0 ? prefix + s : s);
                            tid = md.tokenizer.encode_target(t);
                        }
                    } catch (const tfm::Error& e) {
                        throw tfm::Error("line " + std::to_string(reader.line()) + ": " + e.what());
                    }
                    for (const auto* seq : {&sid, &tid})
                        if (seq->size() > c.max_positions)
                            throw tfm::Error("line " + std::to_string(reader.line()) + ": " + (seq == &sid ? "source" : "target") +
                                             " of " + std::to_string(seq->size()) + " tokens, more than the model's " +
                                             std::to_string(c.max_positions) + " positions");
                    srcs.push_back(std::move(sid));
                    tgts.push_back(std::move(tid));
                }
            } catch (const tfm::Error&) {
                bad = std::current_exception();
            }
            std::string text;
            for (const auto& s : tfm::score_targets(md.model, srcs, tgts, batch, attention ? &*attention : nullptr))
                text += format_score(s, normalize, tokens, alignment.mode);
            out.write(text);
            if (bad) std::rethrow_exception(bad);
        }
    });
}
