// NLLB-200 and M2M100 directories as published (tests/golden/make_m2m_golden.py): their
// tokenizers (NLLB's SentencePiece ids + 1 and added language tokens, M2M100's vocab.json and
// __xx__ codes, the legacy order), the target language forced first, greedy and beam search
// with transformers' early_stopping, decoding with its clean-up of spaces. The oracle is
// PyTorch with NllbTokenizer's, M2M100Tokenizer's and BeamSearchScorer's rules written
// independently.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "helpers.hpp"
#include "tfm/base/close_matches.hpp"
#include "tfm/decode/generation_settings.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/language_tokens.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::golden;

namespace nllb_test {  // named: the unit tests build in unity batches

std::vector<std::int64_t> ids_of(const std::string& s) {
    std::vector<std::int64_t> out;
    std::istringstream in(s);
    for (std::int64_t v; in >> v;) out.push_back(v);
    return out;
}

std::vector<std::vector<std::string>> tsv(const std::string& path, std::size_t cols) {
    std::ifstream f(path);
    REQUIRE(f.good());
    std::vector<std::vector<std::string>> out;
    for (std::string l; std::getline(f, l);) {
        std::vector<std::string> c;
        std::size_t at = 0;
        for (std::size_t tab; (tab = l.find('\t', at)) != std::string::npos; at = tab + 1) c.push_back(l.substr(at, tab - at));
        c.push_back(l.substr(at));
        REQUIRE(c.size() == cols);
        out.push_back(std::move(c));
    }
    return out;
}

struct Case {
    std::string source_lang, target_lang, line, greedy_text, beam_text;
    std::vector<std::int64_t> source_ids, greedy, beam;
    double beam_score = 0;
};

std::vector<Case> cases(const std::string& name) {
    std::vector<Case> out;
    for (const auto& c : tsv(golden("m2m_" + name + "_lines.tsv"), 10))
        out.push_back({c[1], c[2], c[3], c[6], c[9], ids_of(c[4]), ids_of(c[5]), ids_of(c[7]), std::stod(c[8])});
    REQUIRE(out.size() == 8);  // the generator writes eight cases per directory
    return out;
}

std::string dir_of(const std::string& name) { return golden("m2m_" + name); }

// Source ids, greedy and beam-4 outputs and their texts, all sentences of a directory in one
// batch of mixed lengths (right padding; the oracle ran each alone).
void check_directory(const std::string& name) {
    ModelDir md = load_model_dir(dir_of(name));
    REQUIRE(md.tokenizer.has_language_tokens());
    const std::string default_source = md.tokenizer.source_language();
    std::vector<std::vector<std::int64_t>> sources;
    std::vector<std::int64_t> targets;
    const auto all = cases(name);
    for (const Case& c : all) {
        CAPTURE(c.line);
        md.tokenizer.set_source_language(c.source_lang.empty() ? default_source : c.source_lang);
        const SourceIds s = source_ids(md.tokenizer, c.line, md.model.config);
        CHECK(s.ids == (c.source_ids == std::vector<std::int64_t>{2} ? std::vector<std::int64_t>{} : c.source_ids));
        sources.push_back(s.ids);
        targets.push_back(md.tokenizer.language_id(c.target_lang, "--target-lang"));
    }
    DecodeOptions greedy;
    apply_generation(greedy, md.generation, {});
    greedy.search.beam = 1;
    greedy.forced_first = targets;
    DecodeOptions beam = greedy;
    beam.search.beam = 4;
    const auto g = translate_sources(md.model, sources, greedy), b = translate_sources(md.model, sources, beam);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Case& c = all[i];
        CAPTURE(c.line);
        if (sources[i].empty()) {
            CHECK(g[i][0].ids.empty());
            continue;
        }
        CHECK(g[i][0].ids == c.greedy);
        CHECK(g[i][0].ids.front() == targets[i]);
        CHECK(md.tokenizer.decode(g[i][0].ids) == c.greedy_text);
        CHECK(b[i][0].ids == c.beam);
        CHECK(std::abs(b[i][0].score - c.beam_score) < 1e-4);
        CHECK(md.tokenizer.decode(b[i][0].ids) == c.beam_text);
    }
    for (const auto& d : tsv(golden("m2m_" + name + "_decode.tsv"), 2)) {
        CAPTURE(d[0]);
        CHECK(md.tokenizer.decode(ids_of(d[0])) == d[1]);
    }
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
}

// A copy of a golden directory in a fresh temporary one, its tokenizer_config.json replaced.
struct TempCopy {
    std::string dir;
    TempCopy(const std::string& from, const std::vector<std::string>& files) {
        char tmpl[] = "/tmp/tfm_nllb_XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        for (const auto& f : files) {
            std::ifstream in(from + "/" + f, std::ios::binary);
            std::ofstream out(dir + "/" + f, std::ios::binary);
            out << in.rdbuf();
        }
    }
    ~TempCopy() { std::system(("rm -rf '" + dir + "'").c_str()); }
};

const std::vector<std::string> kNllbFiles = {"config.json", "generation_config.json", "sentencepiece.bpe.model",
                                             "pytorch_model.bin", "special_tokens_map.json", "tokenizer_config.json"};

}  // namespace nllb_test

using namespace nllb_test;

TEST_CASE("nllb: NllbTokenizer's ids, the language first, greedy and beam as transformers") { check_directory("nllb"); }

TEST_CASE("nllb: the older tokenizer files and legacy_behaviour (pieces </s> [lang])") {
    check_directory("nllb_legacy");
    const ModelDir md = load_model_dir(dir_of("nllb_legacy"));
    CHECK(md.tokenizer.source_language() == "deu_Latn");  // tokenizer_config.json's src_lang
}

TEST_CASE("m2m100: vocab.json, the __xx__ codes after it, early_stopping true") { check_directory("m2m100"); }

TEST_CASE("nllb, m2m100: languages, their ids, close matches for a wrong code") {
    ModelDir nllb = load_model_dir(dir_of("nllb"));
    const auto langs = nllb.tokenizer.target_languages();
    CHECK(langs == std::vector<std::string>{"ace_Arab", "deu_Latn", "eng_Latn", "fra_Latn", "zho_Hans"});
    // ids follow the files' order (eng_Latn first), not the sorted one
    CHECK(nllb.tokenizer.language_id("ace_Arab", "x") == nllb.tokenizer.language_id("eng_Latn", "x") + 4);
    CHECK(nllb.tokenizer.source_language() == "eng_Latn");  // transformers' default
    CHECK(nllb.generation.early_stopping == EarlyStopping::False);  // not stated: transformers' default
    const std::string e = error_of([&] { nllb.tokenizer.language_id("deu_latn", "--target-lang"); });
    CHECK(e == "--target-lang: deu_latn is not one of the model's 5 languages: ace_Arab deu_Latn eng_Latn fra_Latn zho_Hans");
    CHECK(error_of([&] { nllb.tokenizer.set_source_language("German"); }).find("--source-lang") == 0);
    CHECK(nllb.tokenizer.source_piece(nllb.tokenizer.language_id("fra_Latn", "x")) == "fra_Latn");
    CHECK(nllb.tokenizer.source_piece(3) == "<unk>");
    // a line's own target: ">>code<<" cut off; an unknown one named with the closest
    std::string_view line = ">>fra_Latn<<  ein Hund";
    CHECK(nllb.tokenizer.take_line_target(line) == nllb.tokenizer.language_id("fra_Latn", "x"));
    CHECK(line == "ein Hund");
    std::string_view plain = "ein >>fra_Latn<< Hund";
    CHECK(nllb.tokenizer.take_line_target(plain) == -1);
    std::string_view bad = ">>fr<< x";
    CHECK(error_of([&] { nllb.tokenizer.take_line_target(bad); }).find(">>fr<<: fr is not one") == 0);

    ModelDir m2m = load_model_dir(dir_of("m2m100"));
    CHECK(m2m.tokenizer.target_languages().size() == 100);
    CHECK(m2m.tokenizer.language_id("de", "x") == m2m.tokenizer.language_id("__de__", "x"));
    CHECK(m2m.tokenizer.source_piece(m2m.tokenizer.language_id("de", "x")) == "__de__");
    CHECK(m2m.tokenizer.source_language() == "en");
    CHECK(m2m.generation.early_stopping == EarlyStopping::True);
    const std::string m = error_of([&] { m2m.tokenizer.language_id("deu", "--target-lang"); });
    CHECK(m.find("--target-lang: deu is not one of the model's 100 languages; closest: de ") == 0);
    CHECK(m.find("(tfm-info --target-languages lists them)") != std::string::npos);
}

TEST_CASE("nllb: tfm-export's copy of the tokenizer loads back the same") {
    const ModelDir md = load_model_dir(dir_of("nllb"));
    TempCopy out(dir_of("nllb"), {});
    copy_tokenizer(dir_of("nllb"), out.dir);
    save_model(out.dir, md.model);
    const ModelDir back = load_model_dir(out.dir);
    CHECK(back.tokenizer.has_language_tokens());
    CHECK(back.tokenizer.target_languages() == md.tokenizer.target_languages());
    for (const Case& c : cases("nllb"))
        CHECK(back.tokenizer.encode(c.line) == md.tokenizer.encode(c.line));
}

TEST_CASE("nllb: hostile tokenizer files are errors that name the file") {
    auto with_config = [&](const std::string& json) {
        TempCopy t(dir_of("nllb"), kNllbFiles);
        nllb_test::write_text(t.dir + "/tokenizer_config.json", json);
        return error_of([&] { load_model_dir(t.dir); });
    };
    CHECK(with_config(R"({"tokenizer_class": "NllbTokenizer", "added_tokens_decoder": {"99999": {"content": "xx_Latn"}}})")
              .find("outside the model's vocabulary") != std::string::npos);
    CHECK(with_config(R"({"added_tokens_decoder": {"5": {"content": "xx_Latn"}}})").find("inside the SentencePiece pieces") !=
          std::string::npos);
    CHECK(with_config(R"({"added_tokens_decoder": {"-1": {"content": "xx_Latn"}}})").find("not an id") != std::string::npos);
    CHECK(with_config(R"({"tokenizer_class": "BertTokenizer"})").find("tokenizer_class") != std::string::npos);
    CHECK(with_config(R"({"src_lang": "xx_Latn"})").find("src_lang") != std::string::npos);
    CHECK(with_config(R"({"additional_special_tokens": 5})").find("additional_special_tokens") != std::string::npos);
    CHECK(with_config(R"([1, 2])").find("not a JSON object") != std::string::npos);
    {  // no language codes anywhere
        TempCopy t(dir_of("nllb"), {"config.json", "sentencepiece.bpe.model", "pytorch_model.bin"});
        CHECK(error_of([&] { load_model_dir(t.dir); }).find("no language codes") != std::string::npos);
    }
    {  // M2M100 with an unknown language set
        TempCopy t(dir_of("m2m100"), {"config.json", "sentencepiece.bpe.model", "model.safetensors", "vocab.json"});
        nllb_test::write_text(t.dir + "/tokenizer_config.json", R"({"language_codes": "m2m101"})");
        CHECK(error_of([&] { load_model_dir(t.dir); }).find("language_codes") != std::string::npos);
    }
    {  // a generation config with a bad early_stopping
        TempCopy t(dir_of("nllb"), kNllbFiles);
        nllb_test::write_text(t.dir + "/generation_config.json", R"({"early_stopping": "sometimes"})");
        CHECK(error_of([&] { load_model_dir(t.dir); }).find("early_stopping") != std::string::npos);
    }
}

TEST_CASE("close_matches: prefixes and small edits, closest first") {
    const std::vector<std::string> names = {"deu_Latn", "eng_Latn", "fra_Latn", "dan_Latn", "de"};
    CHECK(close_matches("deu_latn", names).front() == "deu_Latn");
    CHECK(close_matches("deu", names) == std::vector<std::string>{"deu_Latn", "de"});
    CHECK(close_matches("xyz_Qqqq", names).empty());
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("sharded checkpoints: torch and safetensors shards load as the whole file") {
    for (const char* name : {"nllb", "m2m100"}) {
        CAPTURE(name);
        ModelDir whole = load_model_dir(dir_of(name)), sharded = load_model_dir(dir_of(std::string(name) + "_sharded"));
        CHECK(sharded.weights.find(".index.json") != std::string::npos);
        std::vector<std::vector<float>> a, b;
        visit_parameters(whole.model, [&](const std::string&, float* p, std::size_t n) { a.emplace_back(p, p + n); });
        visit_parameters(sharded.model, [&](const std::string&, float* p, std::size_t n) { b.emplace_back(p, p + n); });
        CHECK(a == b);
    }
    ModelDir md = load_model_dir(dir_of("nllb_sharded"));  // and it translates as the fixture says
    const Case c = cases("nllb").front();
    md.tokenizer.set_source_language(c.source_lang);
    DecodeOptions opt;
    apply_generation(opt, md.generation, {});
    opt.search.beam = 4;
    opt.forced_first_all = md.tokenizer.language_id(c.target_lang, "x");
    CHECK(translate_sources(md.model, {md.tokenizer.encode(c.line)}, opt)[0][0].ids == c.beam);
}

TEST_CASE("sharded checkpoints: a hostile index is an error naming it") {
    const std::vector<std::string> files = {"config.json", "sentencepiece.bpe.model", "tokenizer_config.json",
                                            "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                                            "vocab.json"};
    auto with_index = [&](const std::string& json) {
        TempCopy t(dir_of("m2m100_sharded"), files);
        nllb_test::write_text(t.dir + "/model.safetensors.index.json", json);
        return error_of([&] { load_model_dir(t.dir); });
    };
    const std::string one = "model-00001-of-00002.safetensors";
    CHECK(with_index(R"({"weight_map": {"model.shared.weight": "../../etc/passwd"}})").find("not the name of a file beside") !=
          std::string::npos);
    CHECK(with_index(R"({"weight_map": {"model.shared.weight": "/etc/passwd"}})").find("not the name of a file beside") !=
          std::string::npos);
    CHECK(with_index(R"({"weight_map": {"model.shared.weight": "missing.safetensors"}})").find("is missing") !=
          std::string::npos);
    CHECK(with_index(R"({"weight_map": {}})").find("names no tensors") != std::string::npos);
    CHECK(with_index(R"({"metadata": {}})").find("not a checkpoint index") != std::string::npos);
    CHECK(with_index(R"({"weight_map": {"model.shared.weight": 7}})").find("not the name") != std::string::npos);
    // every tensor mapped to the first shard: the ones it lacks are named
    const ModelDir md = load_model_dir(dir_of("m2m100_sharded"));
    std::string all = "{\"weight_map\": {";
    bool first = true;
    visit_tensors(md.model, [&](const std::string& name, const float*, const Shape&) {
        all += std::string(first ? "" : ", ") + "\"" + name + "\": \"" + one + "\"";
        first = false;
    });
    all += "}}";
    CHECK(with_index(all).find("which lacks it") != std::string::npos);
}
