// Text as users send it: UTF-8 repair, gzip lines, configs.
#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "helpers.hpp"
#include "tfm/model/config.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::error_of;

TEST_CASE("utf8: valid text passes, every kind of invalid sequence becomes U+FFFD") {
    std::size_t n = 0;
    CHECK(sanitize_utf8("Grüße, 東京 🙂", &n) == "Grüße, 東京 🙂");
    CHECK(n == 0);
    const std::string r = "\xEF\xBF\xBD";
    CHECK(sanitize_utf8("a\xFF" "b", &n) == "a" + r + "b");                  // bad lead byte
    CHECK(sanitize_utf8("a\xC3", &n) == "a" + r);                            // truncated
    CHECK(sanitize_utf8("\xC0\xAF", &n) == r + r);                           // overlong
    CHECK(sanitize_utf8("\xED\xA0\x80", &n) == r + r + r);                   // surrogate
    CHECK(sanitize_utf8("\xF4\x90\x80\x80", &n) == r + r + r + r);           // past U+10FFFF
    CHECK(sanitize_utf8(std::string("a\0b", 3), &n) == "a b");               // NUL
    CHECK(n == 1);
    CHECK(sanitize_utf8("line\r") == "line");                                // CRLF
}

TEST_CASE("utf8: a line is cut between characters, at a budget the token limit sets") {
    CHECK(text_budget(512) == 512 * kTextBytesPerToken);
    CHECK(text_budget(SIZE_MAX) == SIZE_MAX);  // no overflow: no budget
    CHECK(cut_text("Grüße", 100) == "Grüße");
    CHECK(cut_text("Grüße", 3) == "Gr");    // ü (2 bytes) would be split at 3
    CHECK(cut_text("Grüße", 4) == "Grü");
    CHECK(cut_text("東京", 5) == "東");      // 3-byte characters
    CHECK(cut_text("🙂🙂", 7) == "🙂");     // 4-byte characters
    CHECK(cut_text("🙂", 0).empty());
    // Invalid UTF-8 (continuation bytes alone) still cuts at the budget, never past it: the
    // sanitizer replaces what is left.
    CHECK(cut_text(std::string(100, '\x80'), 10).size() >= 6);
    CHECK(cut_text(std::string(100, '\x80'), 10).size() <= 10);
}

TEST_CASE("source ids: a line past the budget is cut before tokenizing, and says so") {
    const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    const ModelConfig& c = md.model.config;
    const std::string whole = "Ein Hund läuft.";
    const SourceIds plain = source_ids(md.tokenizer, whole, c);
    CHECK_FALSE(plain.truncated);
    CHECK(plain.line_bytes == 0);
    CHECK(plain.cap == c.max_positions);
    // The same sentence, then spaces past the budget for 8 tokens, then more words.
    const std::string line = whole + std::string(text_budget(8), ' ') + "Zwei Katzen.";
    const SourceIds cut = source_ids(md.tokenizer, line, c, 8);
    CHECK(cut.truncated);
    CHECK(cut.line_bytes == line.size());
    CHECK(cut.cap == 8);
    CHECK(cut.ids == plain.ids);  // what was kept tokenizes as the sentence alone
    // Cut by tokens only: the budget is not reached.
    const SourceIds tokens = source_ids(md.tokenizer, whole + " " + whole + " " + whole, c, 8);
    CHECK(tokens.truncated);
    CHECK(tokens.line_bytes == 0);
    CHECK(tokens.ids.size() == 8);
    CHECK(tokens.full_length > 8);
}

TEST_CASE("line reader: plain and gzip files, a truncated gzip is an error") {
    const std::string plain = "/tmp/tfm-test-lines.txt", gz = "/tmp/tfm-test-lines.txt.gz";
    std::ofstream(plain) << "one\ntwo\n\nlast";
    gzFile g = gzopen(gz.c_str(), "wb");
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
    gzwrite(g, text.data(), unsigned(text.size()));
    gzclose(g);
    std::vector<std::string> lines;
    std::string line;
    LineReader a(plain);
    while (a.next(line)) lines.push_back(line);
    CHECK(lines == std::vector<std::string>{"one", "two", "", "last"});
    LineReader b(gz);
    int n = 0;
    while (b.next(line)) CHECK(line == "line " + std::to_string(n++));
    CHECK(n == 20000);
    std::FILE* f = std::fopen(gz.c_str(), "rb");
    std::vector<char> bytes(1 << 20);
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
    std::fclose(f);
    std::ofstream(gz, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
    CHECK(error_of([&] {
              LineReader c(gz);
              while (c.next(line)) {
              }
          }).find("truncated gzip file") != std::string::npos);
    CHECK(error_of([] { LineReader d("/nonexistent/file"); }).find("No such file") != std::string::npos);
    std::remove(plain.c_str());
    std::remove(gz.c_str());
}

TEST_CASE("config: presets are valid and round-trip through JSON") {
    for (const char* p : {"base", "big", "small", "tiny"}) {
        ModelConfig c = preset_config(p, 1000);
        validate_config(c);
        const std::string path = std::string("/tmp/tfm-test-config-") + p + ".json";
        std::ofstream(path) << config_json(c);
        ModelConfig r = load_config(path);
        CHECK(r.d_model == c.d_model);
        CHECK(r.encoder_layers == c.encoder_layers);
        CHECK(r.decoder_heads == c.decoder_heads);
        CHECK(r.positions == c.positions);
        CHECK(r.norm == c.norm);
        CHECK(r.layer_norm_eps == c.layer_norm_eps);
        std::remove(path.c_str());
    }
    ModelConfig base = preset_config("base", 8000);
    CHECK(base.d_model == 512);
    CHECK(base.encoder_ffn == 2048);
    CHECK(preset_config("big", 8000).encoder_heads == 16);
    CHECK(error_of([] { preset_config("huge", 10); }).find("unknown preset") == 0);
}

TEST_CASE("config: a bare HF Marian config means HF's choices; bad ones are named") {
    const std::string path = "/tmp/tfm-test-marian.json";
    std::string marian = R"({"model_type": "marian", "d_model": 8, "encoder_layers": 1, "decoder_layers": 1,
        "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16,
        "vocab_size": 10, "max_position_embeddings": 32, "activation_function": "swish", "scale_embedding": true,
        "pad_token_id": 9, "eos_token_id": 0, "decoder_start_token_id": 9})";
    std::ofstream(path) << marian;
    ModelConfig c = load_config(path);
    CHECK(c.positions == PositionKind::SinusoidalHalves);
    CHECK(c.norm == NormPlacement::Post);
    CHECK(c.layer_norm_eps == 1e-5f);
    CHECK(c.activation == Activation::Swish);
    auto with = [&](const std::string& from, const std::string& to) {
        std::string s = marian;
        s.replace(s.find(from), from.size(), to);
        std::ofstream(path) << s;
        return error_of([&] { load_config(path); });
    };
    CHECK(with("\"d_model\": 8", "\"d_model\": 9").find("d_model=9 is not divisible by encoder_attention_heads=2") != std::string::npos);
    CHECK(with("\"vocab_size\": 10,", "").find("missing key 'vocab_size'") != std::string::npos);
    CHECK(with("\"swish\"", "\"tanh\"").find("unsupported activation_function 'tanh'") != std::string::npos);
    CHECK(with("\"pad_token_id\": 9", "\"pad_token_id\": 10").find("pad_token_id=10 is outside the vocabulary of 10") != std::string::npos);
    CHECK(with("\"d_model\": 8", "\"d_model\": \"8\"").find("key 'd_model' must be an integer from 1 to 65536, got \"8\"") != std::string::npos);
    CHECK(with("\"encoder_layers\": 1", "\"encoder_layers\": -1").find("key 'encoder_layers' must be an integer from 1 to 1024, got -1") != std::string::npos);
    // Separate vocabularies: HF's share_encoder_decoder_embeddings and decoder_vocab_size.
    const std::string sep = "\"share_encoder_decoder_embeddings\": false, \"decoder_vocab_size\": 12, \"vocab_size\": 10,";
    CHECK(with("\"vocab_size\": 10,", sep).empty());
    ModelConfig s = load_config(path);
    CHECK_FALSE(s.share_embeddings);
    CHECK(s.source_vocab() == 10);
    CHECK(s.target_vocab() == 12);
    std::ofstream(path) << config_json(s);
    CHECK(config_json(load_config(path)) == config_json(s));
    CHECK(with("\"vocab_size\": 10,", "\"decoder_vocab_size\": 12, \"vocab_size\": 10,")
              .find("share_encoder_decoder_embeddings needs decoder_vocab_size=12 equal to vocab_size=10") != std::string::npos);
    CHECK(with("\"vocab_size\": 10,", "\"share_encoder_decoder_embeddings\": false, \"decoder_vocab_size\": 8, \"vocab_size\": 10,")
              .find("pad_token_id=9 is outside the vocabulary of 8") != std::string::npos);
    std::remove(path.c_str());
}
