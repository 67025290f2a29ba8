#include "tfm/model/tokenizer.hpp"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/base/utf8.hpp"

namespace sentencepiece::logging {
void SetMinLogLevel(int v);  // exported by libsentencepiece, not declared in its public headers
}

namespace tfm {

struct Tokenizer::Impl {
    sentencepiece::SentencePieceProcessor source, target;
    std::unordered_map<std::string, std::int64_t> vocab;  // piece -> id (vocab.json)
    std::vector<std::string> pieces;                       // id -> piece (vocab.json)
    std::int64_t unk = 0, eos = 0, pad = 0, start = 0;

    std::vector<std::int64_t> encode(const sentencepiece::SentencePieceProcessor& sp, std::string_view line) const;
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

}  // namespace

TokenizerFiles tokenizer_files(const std::string& dir) {
    TokenizerFiles f{dir + "/source.spm", dir + "/target.spm", dir + "/vocab.json"};
    if (!path_present(f.source) && !path_present(f.target)) f.source = f.target = dir + "/spm.model";
    if (!path_present(f.source)) throw Error(dir + ": missing source.spm (the SentencePiece model of the source language)");
    if (!path_present(f.target)) throw Error(dir + ": missing target.spm (the SentencePiece model of the target language)");
    if (!path_present(f.vocab)) f.vocab.clear();
    return f;
}

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
    const std::string& vocab_path = files.vocab;
    if (!vocab_path.empty()) {
        const Json j = read_json_file(vocab_path, std::size_t(256) << 20);
        if (!j.is_object()) throw Error(vocab_path + ": not a JSON object of piece -> id");
        if (!config.share_embeddings)
            throw Error(vocab_path + ": one piece -> id map needs a model with shared embeddings "
                        "(share_encoder_decoder_embeddings)");
        s.pieces.assign(config.vocab_size, "");
        for (auto& [piece, id] : j.items()) {
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
                std::size_t(id.get<std::int64_t>()) >= config.vocab_size)
                throw Error(vocab_path + ": piece " + json_excerpt(piece) + " has id " + json_excerpt(id) + " outside the vocabulary of " +
                            std::to_string(config.vocab_size));
            s.vocab[piece] = id.get<std::int64_t>();
            s.pieces[std::size_t(id.get<std::int64_t>())] = piece;
        }
        auto unk = s.vocab.find("<unk>");
        if (unk == s.vocab.end()) throw Error(vocab_path + ": no <unk> piece");
        s.unk = unk->second;
    } else {
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

std::string Tokenizer::source_piece(std::int64_t id) const {
    const Impl& s = *impl_;
    if (!s.vocab.empty()) {
        if (id >= 0 && std::size_t(id) < s.pieces.size() && !s.pieces[std::size_t(id)].empty())
            return s.pieces[std::size_t(id)];
    } else if (id >= 0 && id < s.source.GetPieceSize()) {
        return s.source.IdToPiece(int(id));
    }
    return "<id " + std::to_string(id) + ">";
}

std::vector<std::int64_t> Tokenizer::encode(std::string_view line) const { return impl_->encode(impl_->source, line); }

std::vector<std::int64_t> Tokenizer::encode_target(std::string_view line) const {
    return impl_->encode(impl_->target, line);
}

std::vector<std::int64_t> Tokenizer::Impl::encode(const sentencepiece::SentencePieceProcessor& sp,
                                                  std::string_view line) const {
    std::string clean = sanitize_utf8(line);
    std::vector<std::int64_t> out;
    if (vocab.empty()) {
        std::vector<int> ids;
        auto status = sp.Encode(clean, &ids);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
        out.assign(ids.begin(), ids.end());
    } else {
        std::vector<std::string> ps;
        auto status = sp.Encode(clean, &ps);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
        for (const auto& p : ps) {
            auto it = vocab.find(p);
            out.push_back(it == vocab.end() ? unk : it->second);
        }
    }
    out.push_back(eos);
    return out;
}

std::string Tokenizer::decode(const std::vector<std::int64_t>& ids) const {
    const Impl& s = *impl_;
    std::string text;
    if (s.vocab.empty()) {
        std::vector<int> keep;
        for (std::int64_t id : ids)
            if (id != s.eos && id != s.pad && id != s.start && id >= 0 && id < s.target.GetPieceSize())
                keep.push_back(int(id));
        auto status = s.target.Decode(keep, &text);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
    } else {
        std::vector<std::string> pieces;
        for (std::int64_t id : ids)
            if (id != s.eos && id != s.pad && id != s.start && id >= 0 && std::size_t(id) < s.pieces.size())
                pieces.push_back(s.pieces[std::size_t(id)]);
        auto status = s.target.Decode(pieces, &text);
        if (!status.ok()) throw Error("tokenizer: " + status.ToString());
    }
    return text;
}

SpmInfo spm_info(const std::string& path) {
    sentencepiece::SentencePieceProcessor sp;
    load_spm(sp, path);
    return {std::size_t(sp.GetPieceSize()), sp.pad_id(), sp.eos_id(), sp.unk_id(), sp.bos_id()};
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
