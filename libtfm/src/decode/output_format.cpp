#include "tfm/decode/output_format.hpp"

#include "tfm/base/number_text.hpp"
#include "tfm/decode/alignment.hpp"
#include "tfm/io/json.hpp"

namespace tfm {

namespace {

// The hypothesis's text (or ids), <unk>s replaced from the source with replace_unk.
std::string hypothesis_text(const Hypothesis& h, const Tokenizer& tok, const OutputFormat& f,
                            const std::vector<TokenSpelling>* source) {
    if (f.ids) {
        std::string s;
        for (std::size_t i = 0; i < h.ids.size(); ++i) s += (i ? " " : "") + std::to_string(h.ids[i]);
        return s;
    }
    if (!f.replace_unk || !source) return tok.decode(h.ids);
    const std::vector<std::size_t> attended = attended_sources(h);
    return tok.decode(h.ids, [&](std::size_t i) {
        return i < attended.size() && attended[i] < source->size() ? (*source)[attended[i]] : TokenSpelling{};
    });
}

Json alignment_json(const Hypothesis& h, const OutputFormat& f) {
    Json a = Json::array();
    if (f.alignment == "hard") {
        const std::vector<std::size_t> attended = attended_sources(h);
        for (std::size_t t = 0; t < attended.size(); ++t) a.push_back({attended[t], t});
    } else {
        for (const auto& row : h.attention) a.push_back(row);
    }
    return a;
}

Json hypothesis_json(const Hypothesis& h, const Tokenizer& tok, const OutputFormat& f,
                     const std::vector<TokenSpelling>* source) {
    Json j = Json::object();
    j["translation"] = hypothesis_text(h, tok, f, source);
    j["score"] = h.score;
    j["logprob"] = h.logprob;
    j["finished"] = h.finished;
    j["ids"] = h.ids;
    Json pieces = Json::array();
    for (std::int64_t id : h.ids) pieces.push_back(tok.target_piece(id));
    j["tokens"] = std::move(pieces);
    j["token_logprobs"] = h.token_logprobs;
    if (!f.alignment.empty()) j["alignment"] = alignment_json(h, f);
    return j;
}

}  // namespace

std::string alignment_text(const std::vector<std::vector<float>>& rows, std::size_t tokens, const std::string& mode) {
    std::string s;
    if (mode == "hard") {
        const std::vector<std::size_t> attended = attended_sources(rows, tokens);
        for (std::size_t t = 0; t < attended.size(); ++t)
            s += (t ? " " : "") + std::to_string(attended[t]) + "-" + std::to_string(t);
        return s;
    }
    for (std::size_t t = 0; t < rows.size(); ++t) {
        if (t) s += ' ';
        for (std::size_t j = 0; j < rows[t].size(); ++j) s += (j ? "," : "") + number_text("%.6g", rows[t][j]);
    }
    return s;
}

std::string format_hypotheses(std::size_t index, const std::vector<Hypothesis>& hyps, const Tokenizer& tok,
                              const OutputFormat& f, const std::vector<TokenSpelling>* source) {
    if (f.jsonl) {
        Json j = hypothesis_json(hyps.front(), tok, f, source);
        j["line"] = index + 1;
        if (f.n_best > 1) {
            Json list = Json::array();
            for (const Hypothesis& h : hyps) list.push_back(hypothesis_json(h, tok, f, source));
            j["n_best"] = std::move(list);
        }
        return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    }
    auto text = [&](const Hypothesis& h) {
        std::string t = hypothesis_text(h, tok, f, source);
        return f.alignment.empty() ? t : t + " ||| " + alignment_text(h.attention, h.ids.size(), f.alignment);
    };
    std::string out;
    if (f.n_best > 1) {
        for (const Hypothesis& h : hyps)
            out += std::to_string(index) + " ||| " + text(h) + " ||| F0= " + number_text("%.6f", h.logprob) +
                   " WordPenalty= " + (h.ids.empty() ? "0" : "-" + std::to_string(h.ids.size())) + " ||| " +
                   number_text("%.6f", h.score) + "\n";
        return out;
    }
    const Hypothesis& best = hyps.front();
    if (f.scores) out += number_text("%.6f", best.score) + "\t";
    return out + text(best) + "\n";
}

std::string format_score(const TargetScore& s, bool normalize, bool tokens, const std::string& alignment) {
    const double v = normalize ? s.logprob / double(s.token_logprobs.size()) : s.logprob;
    std::string out = number_text("%.6f", v);
    if (tokens) {
        out += '\t';
        for (std::size_t i = 0; i < s.token_logprobs.size(); ++i)
            out += (i ? " " : "") + number_text("%.4f", double(s.token_logprobs[i]));
    }
    if (!alignment.empty())  // the target's tokens without eos
        out += " ||| " + alignment_text(s.attention, s.token_logprobs.size() - 1, alignment);
    return out + "\n";
}

}  // namespace tfm
