#include "tfm/model/tokenizer.hpp"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "tfm/base/close_matches.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/language_tokens.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/base/utf8.hpp"

namespace sentencepiece::logging {
void SetMinLogLevel(int v);  // exported by libsentencepiece, not declared in its public headers
}

namespace tfm {

// vocab.json: piece -> id and back.
struct VocabMap {
    std::unordered_map<std::string, std::int64_t> ids;
    std::vector<std::string> pieces;  // id -> piece ("" for an id without one)
    std::int64_t unk = 0;

    std::int64_t id(const std::string& piece) const {
        auto it = ids.find(piece);
        return it == ids.end() ? unk : it->second;
    }
};

// fairseq's dictionary starts with these four (NLLB's ids 0..3; SentencePiece's own come after).
constexpr const char* kFairseqNames[] = {"<s>", "<pad>", "</s>", "<unk>"};

struct Tokenizer::Impl {
    sentencepiece::SentencePieceProcessor source, target;
    std::optional<VocabMap> source_vocab, target_vocab;  // both set, or neither
    std::int64_t unk = 0, eos = 0, pad = 0, start = 0;
    // NLLB and M2M100: the language tokens, the source's, and every id decoding drops besides
    // eos, pad, start and <unk> (<s>, the languages, <mask>), sorted.
    std::optional<LanguageTokens> languages;
    std::int64_t source_language = -1;
    std::vector<std::int64_t> dropped;
    bool fairseq_offset = false;  // NLLB: SentencePiece id + 1, its <unk> (0) -> unk

    // ids of line's pieces then eos; spell, when set, receives how the line spells each.
    // language, when not negative, is the line's language token (a model with language tokens).
    std::vector<std::int64_t> encode(const sentencepiece::SentencePieceProcessor& sp, const std::optional<VocabMap>& map,
                                     std::string_view line, std::vector<TokenSpelling>* spell = nullptr,
                                     std::int64_t language = -1) const;
    std::int64_t piece_id(const std::optional<VocabMap>& map, const std::string& piece, int spm_id) const {
        if (map) return map->id(piece);
        if (fairseq_offset) return spm_id > 0 ? spm_id + 1 : unk;
        return spm_id;
    }
    bool drops(std::int64_t id) const {
        return id == eos || id == pad || id == start || id == unk || std::binary_search(dropped.begin(), dropped.end(), id);
    }
};

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

namespace {

void load_spm(sentencepiece::SentencePieceProcessor& sp, const std::string& path) {
    auto status = sp.LoadFromSerializedProto(read_regular_file(path, std::size_t(256) << 20));
    if (!status.ok()) throw Error(path + ": not a SentencePiece model (" + status.ToString() + ")");
}

VocabMap load_vocab(const std::string& path, std::size_t size, const char* key) {
    const Json j = read_json_file(path, std::size_t(256) << 20);
    if (!j.is_object()) throw Error(path + ": not a JSON object of piece -> id");
    VocabMap v;
    v.pieces.assign(size, "");
    for (auto& [piece, id] : j.items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || std::size_t(id.get<std::int64_t>()) >= size)
            throw Error(path + ": piece " + json_excerpt(piece) + " has id " + json_excerpt(id) + " outside the vocabulary of " +
                        std::to_string(size) + " (" + key + ")");
        v.ids[piece] = id.get<std::int64_t>();
        v.pieces[std::size_t(id.get<std::int64_t>())] = piece;
    }
    auto unk = v.ids.find("<unk>");
    if (unk == v.ids.end()) throw Error(path + ": no <unk> piece");
    v.unk = unk->second;
    return v;
}

bool code_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// The end of the language code that starts at `at` (">>xx<<"), or npos.
std::size_t code_end(std::string_view s, std::size_t at) {
    if (s.compare(at, 2, ">>") != 0) return std::string_view::npos;
    std::size_t i = at + 2;
    while (i < s.size() && code_char(s[i])) ++i;
    if (i == at + 2 || s.compare(i, 2, "<<") != 0) return std::string_view::npos;
    return i + 2;
}

// MarianTokenizer's rule: a leading ">>...<<" is the line's code, kept whole; language codes
// anywhere else in the line are dropped.
std::pair<std::string, std::string> split_language_code(const std::string& line) {
    std::string code, rest = line;
    if (line.compare(0, 2, ">>") == 0) {
        const std::size_t end = line.find("<<", 2);
        if (end != std::string::npos) {
            code = line.substr(0, end + 2);
            rest = line.substr(end + 2);
        }
    }
    for (std::size_t at = rest.find(">>"); at != std::string::npos; at = rest.find(">>", at)) {
        const std::size_t end = code_end(rest, at);
        if (end == std::string::npos) ++at;
        else rest.erase(at, end - at);
    }
    return {code, rest};
}

}  // namespace

bool is_language_code(std::string_view piece) { return !piece.empty() && code_end(piece, 0) == piece.size(); }

TokenizerFiles tokenizer_files(const std::string& dir) {
    TokenizerFiles f{dir + "/source.spm", dir + "/target.spm", dir + "/vocab.json", dir + "/target_vocab.json", false, {}};
    if (!path_present(f.source) && !path_present(f.target)) {
        f.source = f.target = dir + "/spm.model";
        if (!path_present(f.source) && path_present(dir + "/sentencepiece.bpe.model")) {
            f.source = f.target = dir + "/sentencepiece.bpe.model";
            f.fairseq = true;
            for (const char* name : {"tokenizer_config.json", "special_tokens_map.json", "tokenizer.json", "added_tokens.json"})
                if (path_present(dir + "/" + name)) f.extra.push_back(dir + "/" + name);
        }
    }
    if (!path_present(f.source)) throw Error(dir + ": missing source.spm (the SentencePiece model of the source language)");
    if (!path_present(f.target)) throw Error(dir + ": missing target.spm (the SentencePiece model of the target language)");
    if (!path_present(f.vocab)) f.vocab.clear();
    if (!path_present(f.target_vocab)) f.target_vocab.clear();
    return f;
}

namespace {

// NLLB's or M2M100's tokenizer: one SentencePiece model for both sides, fairseq's dictionary
// (NLLB: SentencePiece's ids + 1 after <s> <pad> </s> <unk>; M2M100: vocab.json), then the
// language tokens.
void load_fairseq(Tokenizer::Impl& s, const std::string& dir, const TokenizerFiles& files, const ModelConfig& config) {
    if (!config.share_embeddings || config.source_vocab() != config.target_vocab())
        throw Error(dir + ": sentencepiece.bpe.model serves both sides, but the model has separate vocabularies");
    const std::size_t vocab = config.source_vocab();
    const FairseqTokenizer kind = fairseq_tokenizer_kind(dir);
    std::int64_t first_free = 0;
    if (kind == FairseqTokenizer::M2m100) {
        if (files.vocab.empty()) throw Error(dir + ": an M2M100 tokenizer needs vocab.json beside sentencepiece.bpe.model");
        s.source_vocab = load_vocab(files.vocab, vocab, "vocab_size");
        first_free = std::int64_t(s.source_vocab->ids.size());
        s.unk = s.source_vocab->unk;
    } else {
        if (!files.vocab.empty()) throw Error(files.vocab + ": an NLLB tokenizer (tokenizer_class NllbTokenizer) has no vocab.json");
        s.fairseq_offset = true;
        first_free = std::int64_t(s.source.GetPieceSize()) + 1;
        if (std::size_t(first_free) > vocab)
            throw Error(files.source + ": " + std::to_string(s.source.GetPieceSize()) + " pieces (+1), more than vocab_size=" +
                        std::to_string(vocab));
        s.unk = 3;
    }
    s.languages = read_language_tokens(dir, kind, first_free, vocab);
    const LanguageTokens& l = *s.languages;
    if (s.source_vocab) {
        for (std::size_t i = 0; i < l.codes.size(); ++i) {  // transformers looks language tokens up first
            const std::string token = l.token(i);
            s.source_vocab->ids[token] = l.ids[i];
            s.source_vocab->pieces[std::size_t(l.ids[i])] = token;
        }
        s.target_vocab = s.source_vocab;
    }
    s.dropped = l.ids;
    if (l.mask >= 0) s.dropped.push_back(l.mask);
    s.dropped.push_back(kind == FairseqTokenizer::Nllb ? 0 : s.source_vocab->id("<s>"));  // bos
    std::sort(s.dropped.begin(), s.dropped.end());
    s.source_language = l.id(l.default_source);
}

}  // namespace

Tokenizer Tokenizer::load(const std::string& dir, const ModelConfig& config) {
    Tokenizer t;
    Impl& s = *t.impl_;
    const TokenizerFiles files = tokenizer_files(dir);
    const std::string &src = files.source, &tgt = files.target;
    load_spm(s.source, src);
    load_spm(s.target, tgt);
    s.eos = config.eos_id;
    s.pad = config.pad_id;
    s.start = config.decoder_start_id;
    if (files.fairseq) {
        load_fairseq(s, dir, files, config);
        return t;
    }
    if (!files.vocab.empty()) {
        s.source_vocab = load_vocab(files.vocab, config.source_vocab(), "vocab_size");
        if (!files.target_vocab.empty())
            s.target_vocab = load_vocab(files.target_vocab, config.target_vocab(),
                                        config.share_embeddings ? "vocab_size" : "decoder_vocab_size");
        else if (config.share_embeddings)
            s.target_vocab = s.source_vocab;
        else
            throw Error(dir + ": a model with separate vocabularies (share_encoder_decoder_embeddings false) needs "
                        "target_vocab.json beside vocab.json");
        s.unk = s.source_vocab->unk;
    } else {
        if (!files.target_vocab.empty()) throw Error(files.target_vocab + ": target_vocab.json without vocab.json");
        const auto check = [&](const sentencepiece::SentencePieceProcessor& sp, const std::string& path,
                                std::size_t limit, const char* key) {
            if (std::size_t(sp.GetPieceSize()) > limit)
                throw Error(path + ": " + std::to_string(sp.GetPieceSize()) + " pieces, more than " + key + "=" +
                            std::to_string(limit));
        };
        check(s.source, src, config.source_vocab(), "vocab_size");
        check(s.target, tgt, config.target_vocab(), config.share_embeddings ? "vocab_size" : "decoder_vocab_size");
        s.unk = s.source.unk_id();
    }
    return t;
}

std::int64_t Tokenizer::unk_id() const { return impl_->unk; }

std::vector<std::string> Tokenizer::target_languages() const {
    if (impl_->languages) return impl_->languages->codes;
    std::vector<std::string> out;
    if (!impl_->source_vocab) return out;
    for (const auto& [piece, id] : impl_->source_vocab->ids)
        if (is_language_code(piece)) out.push_back(piece.substr(2, piece.size() - 4));
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// "what: CODE is not one of the model's N languages": then all of them when they are few, else
// the closest and where to find the rest.
std::string unknown_language(const std::string& what, const std::string& code, const std::vector<std::string>& langs) {
    std::string msg = what + ": " + (code.empty() ? "an empty code" : code) + " is not one of the model's " +
                      std::to_string(langs.size()) + " languages";
    if (langs.size() <= 12) {
        msg += ":";
        for (const auto& l : langs) msg += " " + l;
        return msg;
    }
    const auto near = close_matches(code, langs);
    if (!near.empty()) {
        msg += "; closest:";
        for (const auto& n : near) msg += " " + n;
    }
    return msg + " (tfm-info --target-languages lists them)";
}

}  // namespace

std::string Tokenizer::target_lang_prefix(const std::string& lang) const {
    if (lang.empty() || impl_->languages) return "";
    const auto langs = target_languages();
    if (std::find(langs.begin(), langs.end(), lang) != langs.end()) return ">>" + lang + "<< ";
    if (langs.empty()) throw UsageError("--target-lang " + lang + ": this model has no target-language codes");
    throw UsageError(unknown_language("--target-lang", lang, langs));
}

bool Tokenizer::has_language_tokens() const { return impl_->languages.has_value(); }

std::int64_t Tokenizer::language_id(const std::string& code, const std::string& what) const {
    if (!impl_->languages) throw UsageError(what + ": this model has no language tokens (NLLB-200 and M2M100 have)");
    const std::int64_t id = impl_->languages->id(code);
    if (id < 0) throw UsageError(unknown_language(what, code, impl_->languages->codes));
    return id;
}

void Tokenizer::set_source_language(const std::string& code) {
    if (!impl_->languages)
        throw UsageError("--source-lang " + code + ": this model takes no source language (NLLB-200 and M2M100 do)");
    impl_->source_language = language_id(code, "--source-lang");
}

std::string Tokenizer::source_language() const {
    const auto& l = impl_->languages;
    if (!l) return "";
    for (std::size_t i = 0; i < l->ids.size(); ++i)
        if (l->ids[i] == impl_->source_language) return l->codes[i];
    return "";
}

std::int64_t Tokenizer::take_line_target(std::string_view& line) const {
    if (!impl_->languages) return -1;
    const std::size_t end = code_end(line, 0);
    if (end == std::string_view::npos) return -1;
    const std::string code(line.substr(2, end - 4));
    const std::int64_t id = impl_->languages->id(code);
    if (id < 0) throw Error(unknown_language(">>" + code + "<<", code, impl_->languages->codes));
    line.remove_prefix(end);
    line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
    return id;
}

std::string with_target_lang(const std::string& prefix, std::string_view line) {
    if (prefix.empty() || line.substr(0, 2) == ">>") return std::string(line);
    return prefix + std::string(line);
}

namespace {

// The piece of an id through vocab.json's map when there is one, else SentencePiece's (NLLB:
// fairseq's names below 4, the language codes, SentencePiece's id - 1).
std::string piece_of(const Tokenizer::Impl& s, const std::optional<VocabMap>& map,
                     const sentencepiece::SentencePieceProcessor& sp, std::int64_t id) {
    if (map) {
        if (id >= 0 && std::size_t(id) < map->pieces.size() && !map->pieces[std::size_t(id)].empty())
            return map->pieces[std::size_t(id)];
    } else if (s.fairseq_offset) {
        if (id >= 0 && id < 4) return kFairseqNames[id];
        if (id > 3 && id - 1 < sp.GetPieceSize()) return sp.IdToPiece(int(id - 1));  // before the codes, after the pieces
        const LanguageTokens& l = *s.languages;
        for (std::size_t i = 0; i < l.ids.size(); ++i)
            if (l.ids[i] == id) return l.token(i);
        if (id == l.mask) return "<mask>";
    } else if (id >= 0 && id < sp.GetPieceSize()) {
        return sp.IdToPiece(int(id));
    }
    return "<id " + std::to_string(id) + ">";
}

}  // namespace

std::string Tokenizer::source_piece(std::int64_t id) const {
    return piece_of(*impl_, impl_->source_vocab, impl_->source, id);
}

std::string Tokenizer::target_piece(std::int64_t id) const {
    return piece_of(*impl_, impl_->target_vocab, impl_->target, id);
}

namespace {

// The id of a piece through vocab.json's map, fairseq's names and language codes, or
// SentencePiece's (NLLB: + 1); -1 when there is none.
std::int64_t id_of(const Tokenizer::Impl& s, const std::optional<VocabMap>& map,
                   const sentencepiece::SentencePieceProcessor& sp, const std::string& piece) {
    if (map) {
        const auto it = map->ids.find(piece);
        return it == map->ids.end() ? -1 : it->second;
    }
    if (s.fairseq_offset) {
        for (std::int64_t i = 0; i < 4; ++i)
            if (piece == kFairseqNames[i]) return i;
        if (const std::int64_t lang = s.languages->id(piece); lang >= 0) return lang;
        if (piece == "<mask>" && s.languages->mask >= 0) return s.languages->mask;
    }
    const int id = sp.PieceToId(piece);
    if (id == sp.unk_id() && piece != sp.IdToPiece(id)) return -1;
    if (s.fairseq_offset) return id > 2 ? id + 1 : -1;  // SentencePiece's <unk> <s> </s> are fairseq's names
    return id;
}

}  // namespace

std::int64_t Tokenizer::source_id(const std::string& piece) const {
    return id_of(*impl_, impl_->source_vocab, impl_->source, piece);
}

std::int64_t Tokenizer::target_id(const std::string& piece) const {
    return id_of(*impl_, impl_->target_vocab, impl_->target, piece);
}

std::vector<std::int64_t> Tokenizer::encode(std::string_view line, std::vector<TokenSpelling>* spellings) const {
    return impl_->encode(impl_->source, impl_->source_vocab, line, spellings, impl_->source_language);
}

std::vector<std::int64_t> Tokenizer::encode_target(std::string_view line, std::int64_t target_language) const {
    return impl_->encode(impl_->target, impl_->target_vocab, line, nullptr, impl_->languages ? target_language : -1);
}

namespace {
constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word start

bool starts_word(std::string_view piece) { return piece.substr(0, kWordMark.size()) == kWordMark; }

// The spelling of a piece whose surface in the line is `surface`.
TokenSpelling spelling(std::string_view piece, std::string_view surface) {
    const std::size_t first = surface.find_first_not_of(" \t"), last = surface.find_last_not_of(" \t");
    TokenSpelling t;
    if (first != std::string_view::npos) t.text = std::string(surface.substr(first, last - first + 1));
    t.word_start = starts_word(piece);
    return t;
}
}  // namespace

std::vector<std::int64_t> Tokenizer::Impl::encode(const sentencepiece::SentencePieceProcessor& sp,
                                                  const std::optional<VocabMap>& map, std::string_view line,
                                                  std::vector<TokenSpelling>* spell, std::int64_t language) const {
    std::string clean = sanitize_utf8(line);
    std::vector<std::int64_t> out;
    std::string rest = std::move(clean);
    const bool before = language >= 0 && !(languages && languages->legacy);
    if (before) {
        out.push_back(language);
        if (spell) spell->push_back({});
    }
    if (map && !languages) {
        auto [code, text] = split_language_code(rest);
        if (!code.empty()) {
            out.push_back(map->id(code));
            if (spell) spell->push_back({});
        }
        rest = std::move(text);
    }
    sentencepiece::ImmutableSentencePieceText pieces;
    auto status = sp.Encode(rest, pieces.mutable_proto());
    if (!status.ok()) throw Error("tokenizer: " + status.ToString());
    bool word = false;  // a piece of whitespace alone ("▁") starts the next piece's word
    for (std::size_t i = 0; i < pieces.pieces_size(); ++i) {
        const auto p = pieces.pieces(int(i));
        out.push_back(piece_id(map, p.piece(), int(p.id())));
        if (!spell) continue;
        TokenSpelling t = spelling(p.piece(), p.surface());
        t.word_start = t.word_start || word;
        word = t.text.empty() && t.word_start;
        spell->push_back(std::move(t));
    }
    if (language >= 0 && out.size() == std::size_t(before)) {  // no pieces: an empty source, eos alone
        out.clear();
        if (spell) spell->clear();
    }
    out.push_back(eos);
    if (spell) spell->push_back({});
    if (language >= 0 && !before && out.size() > 1) {  // NLLB's legacy order: pieces </s> [language]
        out.push_back(language);
        if (spell) spell->push_back({});
    }
    return out;
}

std::string Tokenizer::decode(const std::vector<std::int64_t>& ids) const {
    const Impl& s = *impl_;
    std::string text;
    if (s.languages) {
        // transformers' skip_special_tokens: eos, pad, <unk>, <s>, the languages, <mask>.
        // Ids without a piece (the rows a vocabulary is padded with) are dropped too.
        const auto spelt = [&](std::int64_t id) {
            if (s.fairseq_offset) return id > 3 && id - 1 < s.target.GetPieceSize();
            return id >= 0 && std::size_t(id) < s.target_vocab->pieces.size() && !s.target_vocab->pieces[std::size_t(id)].empty();
        };
        std::vector<std::string> pieces;
        for (std::int64_t id : ids)
            if (!s.drops(id) && spelt(id)) pieces.push_back(target_piece(id));
        if (s.fairseq_offset) {  // NllbTokenizer: the pieces joined, U+2581 as a space, stripped
            for (const auto& p : pieces) text += p;
            std::string spaced;
            for (std::size_t at = 0, hit; at < text.size(); at = hit + kWordMark.size()) {
                hit = text.find(kWordMark, at);
                if (hit == std::string::npos) hit = text.size();
                spaced.append(text, at, hit - at);
                if (hit < text.size()) spaced += ' ';
            }
            const std::size_t first = spaced.find_first_not_of(" \t\n\r\f\v"), last = spaced.find_last_not_of(" \t\n\r\f\v");
            text = first == std::string::npos ? "" : spaced.substr(first, last - first + 1);
        } else {  // M2M100Tokenizer: SentencePiece's decoding
            auto status = s.target.Decode(pieces, &text);
            if (!status.ok()) throw Error("tokenizer: " + status.ToString());
        }
        return s.languages->clean_up_spaces ? clean_up_tokenization(std::move(text)) : text;
    }
    if (!s.target_vocab) {
        std::vector<int> keep;
        for (std::int64_t id : ids)
            if (id != s.eos && id != s.pad && id != s.start && id >= 0 && id < s.target.GetPieceSize())
                keep.push_back(int(id));
        auto status = s.target.Decode(keep, &text);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
    } else {
        // HF's skip_special_tokens: no eos, pad, <unk>; nor language codes, nor ids without a piece.
        const VocabMap& v = *s.target_vocab;
        std::vector<std::string> pieces;
        for (std::int64_t id : ids) {
            if (id == s.eos || id == s.pad || id == s.start || id == v.unk || id < 0 || std::size_t(id) >= v.pieces.size())
                continue;
            const std::string& p = v.pieces[std::size_t(id)];
            if (!p.empty() && !is_language_code(p)) pieces.push_back(p);
        }
        auto status = s.target.Decode(pieces, &text);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
    }
    return text;
}

std::string Tokenizer::decode(const std::vector<std::int64_t>& ids,
                              const std::function<TokenSpelling(std::size_t)>& unk) const {
    std::string text;
    std::vector<std::int64_t> run;  // ids since the last <unk>
    auto add = [&](const std::string& t, bool word_start) {
        if (t.empty()) return;
        if (word_start && !text.empty()) text += ' ';
        text += t;
    };
    auto flush = [&] {
        if (!run.empty()) add(decode(run), starts_word(target_piece(run.front())));
        run.clear();
    };
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] != impl_->unk) {
            run.push_back(ids[i]);
            continue;
        }
        flush();
        const TokenSpelling t = unk(i);
        add(t.text, t.word_start);
    }
    flush();
    return text;
}

SpmInfo spm_info(const std::string& path) {
    sentencepiece::SentencePieceProcessor sp;
    load_spm(sp, path);
    return {std::size_t(sp.GetPieceSize()), sp.pad_id(), sp.eos_id(), sp.unk_id(), sp.bos_id()};
}

std::vector<std::string> spm_pieces(const std::string& path) {
    sentencepiece::SentencePieceProcessor sp;
    load_spm(sp, path);
    std::vector<std::string> out;
    for (int i = 0; i < sp.GetPieceSize(); ++i) out.push_back(sp.IdToPiece(i));
    return out;
}

namespace {

class FileSentences : public sentencepiece::SentenceIterator {
public:
    FileSentences(const std::vector<std::string>& files, std::size_t max) : files_(files), max_(max) { Next(); }
    bool done() const override { return done_; }
    void Next() override {
        try {
            advance();
        } catch (const std::exception& e) {  // reported through status(), not thrown through the library
            error_ = e.what();
            done_ = true;
        }
    }
    const std::string& value() const override { return value_; }
    sentencepiece::util::Status status() const override {
        if (error_.empty()) return sentencepiece::util::Status();
        return sentencepiece::util::Status(sentencepiece::util::StatusCode::kInternal, error_);
    }
    const std::string& error() const { return error_; }
    std::size_t nonblank() const { return nonblank_; }

private:
    std::vector<std::string> files_;
    std::size_t max_, file_ = 0, count_ = 0, nonblank_ = 0;
    std::unique_ptr<LineReader> reader_;
    std::string value_, error_;
    bool done_ = false;

    void advance() {
        while (!done_) {
            if (!reader_) {
                if (file_ == files_.size()) {
                    done_ = true;
                    return;
                }
                reader_ = std::make_unique<LineReader>(files_[file_++]);
            }
            if (count_ < max_ && reader_->next(value_)) {
                value_ = sanitize_utf8(value_);
                ++count_;
                if (value_.find_first_not_of(" \t\r") != std::string::npos) ++nonblank_;
                return;
            }
            reader_.reset();
            if (count_ >= max_) done_ = true;
        }
    }
};

}  // namespace

void train_sentencepiece(const std::vector<std::string>& inputs, const std::string& output, const SpmTrainOptions& opt) {
    if (inputs.empty()) throw Error("SentencePiece training needs at least one text file");
    FileSentences sentences(inputs, opt.max_sentences);
    std::string model;
    std::unordered_map<std::string, std::string> args = {
        {"vocab_size", std::to_string(opt.vocab_size)},
        {"model_type", opt.model_type},
        {"character_coverage", std::to_string(opt.character_coverage)},
        {"pad_id", "0"},
        {"eos_id", "1"},
        {"unk_id", "2"},
        {"bos_id", "-1"},
        {"hard_vocab_limit", "false"},
        {"num_threads", "2"},
    };
    sentencepiece::SetRandomGeneratorSeed(unsigned(opt.seed));
    sentencepiece::logging::SetMinLogLevel(2);  // the library never prints: no training chatter
    auto status = sentencepiece::SentencePieceTrainer::Train(args, &sentences, &model);
    if (!sentences.error().empty()) throw Error(sentences.error());
    if (sentences.nonblank() == 0) {
        std::string names;
        for (const auto& f : inputs) names += (names.empty() ? "" : ", ") + f;
        throw Error(names + ": no text to train a SentencePiece model on (empty or blank lines only)");
    }
    if (!status.ok()) throw Error(std::string("SentencePiece training failed: ") + status.message());
    write_file_atomic(output, model);
}

}  // namespace tfm
