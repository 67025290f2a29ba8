// The tokenizer: a SentencePiece model trained here, model ids straight from it or mapped
// through vocab.json (OPUS-MT style), eos appended, special ids dropped on decoding.
#include <sentencepiece_processor.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/tokenizer.hpp"

using namespace tfm;

TEST_CASE("tokenizer: SentencePiece ids, or ids mapped through vocab.json") {
    tfm_test::TempDir dir;
    {
        std::ofstream corpus(dir.path + "/corpus.txt");
        const char* words[] = {"Haus", "Hund", "Katze", "Baum", "rot", "blau", "klein", "groß"};
        for (int i = 0; i < 300; ++i) corpus << words[i % 8] << ' ' << words[(i * 3) % 8] << ' ' << words[(i * 5) % 8] << "\n";
    }
    SpmTrainOptions opt;
    opt.vocab_size = 40;
    train_sentencepiece({dir.path + "/corpus.txt"}, dir.path + "/spm.model", opt);
    SpmInfo info = spm_info(dir.path + "/spm.model");
    CHECK(info.pad == 0);
    CHECK(info.eos == 1);
    CHECK(info.unk == 2);
    CHECK(info.bos == -1);
    ModelConfig c = preset_config("tiny", info.pieces);

    Tokenizer plain = Tokenizer::load(dir.path, c);
    auto ids = plain.encode("Haus Katze rot");
    REQUIRE(ids.size() >= 2);
    CHECK(ids.back() == c.eos_id);
    CHECK(plain.decode(ids) == "Haus Katze rot");
    CHECK(plain.encode("").size() == 1);  // just eos
    CHECK(plain.decode(plain.encode("Haus \xff rot")).find("Haus") == 0);  // invalid UTF-8 survives as a piece

    // vocab.json: every piece i -> V-1-i, except "▁Hund" left out (-> <unk>).
    sentencepiece::SentencePieceProcessor sp;
    REQUIRE(sp.Load(dir.path + "/spm.model").ok());
    nlohmann::json vocab;
    const std::int64_t v = std::int64_t(info.pieces);
    for (int i = 0; i < sp.GetPieceSize(); ++i)
        if (sp.IdToPiece(i) != "\xE2\x96\x81Hund") vocab[sp.IdToPiece(i)] = v - 1 - i;
    std::ofstream(dir.path + "/vocab.json") << vocab.dump();
    ModelConfig mapped_cfg = c;
    mapped_cfg.eos_id = v - 1 - 1;  // eos piece </s> now lives at V-2
    Tokenizer mapped = Tokenizer::load(dir.path, mapped_cfg);
    CHECK(mapped.unk_id() == v - 1 - 2);
    auto mids = mapped.encode("Haus Katze rot");
    REQUIRE(mids.size() == ids.size());
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) CHECK(mids[i] == v - 1 - ids[i]);
    CHECK(mids.back() == mapped_cfg.eos_id);
    CHECK(mapped.decode(mids) == "Haus Katze rot");
    auto hund = mapped.encode("Hund");
    CHECK(hund.front() == mapped.unk_id());

    // A vocab.json id outside the model's vocabulary is refused.
    vocab["<bad>"] = v + 5;
    std::ofstream(dir.path + "/vocab.json") << vocab.dump();
    CHECK(tfm_test::error_of([&] { Tokenizer::load(dir.path, mapped_cfg); }).find("outside the vocabulary") != std::string::npos);
}
