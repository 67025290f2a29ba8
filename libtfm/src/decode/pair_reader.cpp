#include "tfm/decode/pair_reader.hpp"

#include <utility>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/decode/translator.hpp"

namespace tfm {

PairReader::PairReader(const std::string& source, const std::string& target, const Tokenizer& tokenizer,
                       const ModelConfig& config, bool ids, std::string prefix)
    : tokenizer_(tokenizer), config_(config), ids_(ids), prefix_(std::move(prefix)) {
    if (target.empty()) {
        tsv_.emplace(source);
    } else {
        src_.emplace(source);
        tgt_.emplace(target);
    }
}

bool PairReader::ready() { return tsv_ ? tsv_->line_ready() : src_->line_ready() && tgt_->line_ready(); }

bool PairReader::next_texts(std::string& source, std::string& target) {
    auto where = [&] { return "line " + std::to_string(line_); };  // built only for an error
    if (tsv_) {
        std::string l;
        if (!tsv_->next(l)) return false;
        ++line_;
        const std::size_t tab = l.find('\t');
        if (tab == std::string::npos) throw Error(where() + ": no tab between source and target");
        if (l.find('\t', tab + 1) != std::string::npos)
            throw Error(where() + ": more than one tab (a line is source<TAB>target)");
        source = l.substr(0, tab);
        target = l.substr(tab + 1);
        return true;
    }
    const bool s = src_->next(source), t = tgt_->next(target);
    if (s != t)
        throw Error((s ? tgt_->path() : src_->path()) + " ends after line " + std::to_string(line_) + " but " +
                    (s ? src_->path() : tgt_->path()) + " goes on");
    if (s) ++line_;
    return s;
}

IdPair PairReader::to_ids(const std::string& source, const std::string& target) const {
    const ModelConfig& c = config_;
    IdPair p;
    if (ids_) {
        p.source = ids_from_numbers(source, c.source_vocab(), c.eos_id);
        p.target = ids_from_numbers(target, c.target_vocab(), c.eos_id);
        for (auto* side : {&p.source, &p.target})
            if (side->empty()) side->push_back(c.eos_id);  // as an empty text line encodes
    } else {
        // Past what the model's positions can spell, a text is refused before tokenizing, so no
        // line costs more than that.
        const std::size_t budget = text_budget(c.max_positions);
        for (const std::string* text : {&source, &target})
            if (text->size() > budget)
                throw Error(std::string(text == &source ? "source" : "target") + " of " + std::to_string(text->size()) +
                            " bytes, more than the " + std::to_string(budget) + " read for the model's " +
                            std::to_string(c.max_positions) + " positions");
        p.source = tokenizer_.encode(with_target_lang(prefix_, source));
        p.target = tokenizer_.encode_target(target, target_language);
    }
    for (const auto* side : {&p.source, &p.target})
        if (side->size() > c.max_positions)
            throw Error(std::string(side == &p.source ? "source" : "target") + " of " + std::to_string(side->size()) +
                        " tokens, more than the model's " + std::to_string(c.max_positions) + " positions");
    return p;
}

std::vector<IdPair> PairReader::next_window(std::size_t size) {
    auto read_one = [&](std::vector<IdPair>& out) {
        std::string s, t;
        if (!next_texts(s, t)) return false;
        try {
            out.push_back(to_ids(s, t));
        } catch (const Error& e) {
            throw Error("line " + std::to_string(line_) + ": " + e.what());
        }
        return true;
    };
    return windows_.next(size, read_one, [&] { return ready(); });
}

}  // namespace tfm
