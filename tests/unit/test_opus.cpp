// OPUS-MT models as published (tests/golden/make_opus_golden.py): HF directories with
// pytorch_model.bin (legacy and zip) or F16 safetensors, vocab.json ids unlike SentencePiece's,
// language codes, generation settings; and a Marian release (.npz, vocab.yml, decoder.yml).
// PyTorch and an independent MarianTokenizer are the oracle: source ids, greedy ids, text.
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "../helpers/craft_checkpoint.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/import/marian.hpp"
#include "tfm/io/npz.hpp"
#include "tfm/io/safetensors.hpp"
#include "tfm/io/torch_checkpoint.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::golden;

namespace {


std::vector<std::int64_t> ids_of(const std::string& s) {
    std::vector<std::int64_t> out;
    std::istringstream in(s);
    for (std::int64_t v; in >> v;) out.push_back(v);
    return out;
}

struct Line {
    std::string source, text;
    std::vector<std::int64_t> source_ids, output_ids;
};

std::vector<Line> lines(const std::string& name) {
    std::ifstream f(golden("opus_" + name + "_lines.tsv"));
    REQUIRE(f.good());
    std::vector<Line> out;
    for (std::string l; std::getline(f, l);) {
        std::vector<std::string> cols;
        std::size_t at = 0;
        for (std::size_t tab; (tab = l.find('\t', at)) != std::string::npos; at = tab + 1) cols.push_back(l.substr(at, tab - at));
        cols.push_back(l.substr(at));
        REQUIRE(cols.size() == 4);
        out.push_back({cols[0], cols[3], ids_of(cols[1]), ids_of(cols[2])});
    }
    REQUIRE(out.size() == 8);  // make_model_golden.py writes eight lines per model: none may be lost
    return out;
}

// Tokenizer, greedy search with the model's own settings, detokenizer: all as the oracle.
void check_lines(const ModelDir& md, const std::string& name) {
    DecodeOptions opt;
    opt.search.beam = 1;
    opt.search.bad_words = md.generation.bad_words_ids;
    for (const Line& l : lines(name)) {
        CAPTURE(l.source);
        const SourceIds s = source_ids(md.tokenizer, l.source, md.model.config);
        CHECK(s.ids == l.source_ids);
        if (s.ids.empty()) continue;
        auto hyps = translate_sources(md.model, {s.ids}, opt);
        CHECK(hyps[0][0].ids == l.output_ids);
        CHECK(md.tokenizer.decode(hyps[0][0].ids) == l.text);
    }
}

// Encoder output and teacher-forced logits of a padded batch, as make_model_golden.py's.
void check_forward(const Model& m, const std::string& name) {
    auto io = tfm_test::read_file(golden("opus_" + name + "_io.npy"));
    REQUIRE(io.size() == 7);
    IdArray src = as_ids(io[0]), lengths = as_ids(io[1]), tgt = as_ids(io[2]);
    TokenBatch s, t;
    s.batch = src.shape(0), s.len = src.shape(1), s.ids.assign(src.begin(), src.end());
    for (auto n : lengths) s.lengths.push_back(std::size_t(n));
    t.batch = tgt.shape(0), t.len = tgt.shape(1), t.ids.assign(tgt.begin(), tgt.end());
    t.lengths.assign(t.batch, t.len);
    EncoderWorkspace ews;
    xt::xtensor<float, 2> memory, logits;
    encoder_forward(memory, m, s, ews);
    tfm_test::check_close(memory, as_float(io[3]), 1e-4, 1e-4);
    DecoderWorkspace dws;
    decoder_forward(logits, m, s, memory, t, dws);
    tfm_test::check_close(logits, as_float(io[4]), 1e-4, 1e-4);
}

}  // namespace

TEST_CASE("opus: published HF Marian directories match PyTorch and MarianTokenizer") {
    for (const char* name : {"base", "tcbig", "separate"}) {
        CAPTURE(name);
        const ModelDir md = load_model_dir(golden(std::string("opus_") + name));
        check_forward(md.model, name);
        check_lines(md, name);
    }
}

TEST_CASE("opus: the conventions of the published configs") {
    const ModelDir base = load_model_dir(golden("opus_base"));
    CHECK(base.weights.find("pytorch_model.bin") != std::string::npos);
    CHECK(base.model.config.eos_id == 0);
    CHECK(base.model.config.pad_id == 95);
    CHECK(base.model.config.decoder_start_id == 95);
    CHECK(base.model.config.activation == Activation::Swish);
    CHECK(base.model.config.layer_norm_eps == doctest::Approx(1e-5));
    // 2020 uploads keep the generation keys in config.json
    CHECK(base.generation.source.find("config.json") != std::string::npos);
    CHECK(base.generation.num_beams == std::optional<std::size_t>(4));
    CHECK(base.generation.max_length == std::optional<std::size_t>(512));
    CHECK(base.generation.bad_words_ids == std::vector<std::vector<std::int64_t>>{{95}});
    CHECK(base.tokenizer.target_languages().empty());

    const ModelDir big = load_model_dir(golden("opus_tcbig"));
    CHECK(big.model.config.eos_id == 57);
    CHECK(big.model.config.activation == Activation::Relu);
    CHECK(big.generation.source.find("generation_config.json") != std::string::npos);
    CHECK(big.generation.forced_eos_token_id == std::optional<std::int64_t>(57));
    CHECK(big.tokenizer.target_languages() == std::vector<std::string>{"fra", "ita", "por"});
    // a leading code is one token; codes elsewhere are dropped; an unknown code is <unk>
    const auto por = big.tokenizer.encode(">>por<< ein Kind");
    CHECK(por.front() == 11);
    CHECK(std::vector<std::int64_t>(por.begin() + 1, por.end()) == big.tokenizer.encode("ein Kind"));
    CHECK(big.tokenizer.encode("ein >>fra<< Kind") == big.tokenizer.encode("ein  Kind"));
    CHECK(big.tokenizer.encode(">>xyz<< ein").front() == big.tokenizer.unk_id());
    // special tokens never printed: eos, pad, <unk>, codes
    CHECK(big.tokenizer.decode({10, 57, 111, 3}).empty());

    // Each shipped model brings the search chosen for it on val (share/recipes/multi30k.sh):
    // what its generation_config.json says, read here by nlohmann-json, is what the loader keeps.
    for (const char* name : {"multi30k-de-en", "multi30k-en-de"}) {
        CAPTURE(name);
        const std::string dir = std::string(TFM_SOURCE) + "/share/models/" + name;
        std::ifstream in(dir + "/generation_config.json");
        REQUIRE(in);
        const nlohmann::json want = nlohmann::json::parse(in);
        const ModelDir own = load_model_dir(dir);
        REQUIRE(own.generation.present());
        REQUIRE(own.generation.num_beams.has_value());
        CHECK(*own.generation.num_beams == want.at("num_beams").get<std::size_t>());
        CHECK(*own.generation.num_beams > 1);
        REQUIRE(own.generation.length_penalty.has_value());
        CHECK(*own.generation.length_penalty == doctest::Approx(want.at("length_penalty").get<double>()));
    }
}

TEST_CASE("opus: generation settings are checked") {
    tfm_test::TempDir dir;
    const std::string src = golden("opus_tcbig");
    for (const char* f : {"config.json", "model.safetensors", "source.spm", "target.spm", "vocab.json"})
        std::system(("cp '" + src + "/" + f + "' '" + dir.path + "/'").c_str());
    auto with = [&](const std::string& json) {
        std::ofstream(dir.file("generation_config.json")) << json;
        return tfm_test::error_of([&] { load_model_dir(dir.path); });
    };
    CHECK(with(R"({"bad_words_ids": [[500]]})").find("outside the target vocabulary") != std::string::npos);
    CHECK(with(R"({"bad_words_ids": [5]})").find("bad_words_ids") != std::string::npos);
    CHECK(with(R"({"num_beams": 0})").find("num_beams") != std::string::npos);
    CHECK(with(R"({"max_length": -3})").find("max_length") != std::string::npos);
    CHECK(with(R"({"forced_eos_token_id": 112})").find("forced_eos_token_id") != std::string::npos);
    CHECK(with(R"([1, 2])").find("not a JSON object") != std::string::npos);
    CHECK(with(R"({"num_beams": 6, "length_penalty": 0.8})").empty());
    std::system(("rm '" + dir.file("vocab.json") + "'").c_str());
    std::ofstream(dir.file("target_vocab.json")) << "{\"<unk>\": 0}";
    CHECK(tfm_test::error_of([&] { load_model_dir(dir.path); }).find("without vocab.json") != std::string::npos);
}

TEST_CASE("opus: a Marian release converts both ways, bit for bit") {
    const std::string release = golden("marian_release");
    const MarianFiles files = marian_files(release);
    CHECK(files.npz.find(".npz") != std::string::npos);
    CHECK(files.source_vocab == files.target_vocab);
    tfm_test::TempDir tmp;
    const std::string imported = tmp.file("imported"), exported = tmp.file("exported");
    import_marian(release, imported);
    const ModelDir md = load_model_dir(imported);
    CHECK(md.model.config.layer_norm_eps == doctest::Approx(1e-6));
    CHECK(md.generation.num_beams == std::optional<std::size_t>(6));
    CHECK(md.generation.length_penalty == std::optional<double>(0.6));
    check_forward(md.model, "marian");
    check_lines(md, "marian");
    // the same weights as transformers' layout of the same model (opus_base)
    const TorchCheckpoint hf = TorchCheckpoint::open(golden("opus_base/pytorch_model.bin"));
    const SafeTensors ours = SafeTensors::open(imported + "/model.safetensors");
    for (const std::string& name : ours.names()) {
        CAPTURE(name);
        const FloatArray a = ours.get(name), b = hf.get(name);
        REQUIRE(a.shape() == b.shape());
        CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
    export_marian(imported, exported);
    const Npz before = Npz::open(files.npz), after = Npz::open(exported + "/model.npz");
    std::vector<std::string> names_before = before.names(), names_after = after.names();
    CHECK(names_before == names_after);
    for (const std::string& name : names_before) {
        if (name == "special:model.yml") continue;
        CAPTURE(name);
        CHECK(before.shape(name) == after.shape(name));
        const FloatArray a = before.get(name), b = after.get(name);
        CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
    // ... and the exported release imports again to the same model
    import_marian(exported, tmp.file("again"));
    const SafeTensors again = SafeTensors::open(tmp.file("again") + "/model.safetensors");
    for (const std::string& name : ours.names()) {
        const FloatArray a = ours.get(name), b = again.get(name);
        CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
    CHECK(tfm_test::error_of([&] { import_marian(release, imported); }).find("already") != std::string::npos);
}

TEST_CASE("opus: Marian files tfm cannot run are refused before anything is written") {
    const MarianFiles files = marian_files(golden("marian_release"));
    const Npz npz = Npz::open(files.npz);
    const std::string options = npz.text("special:model.yml");
    tfm_test::TempDir tmp;
    // A release directory whose npz is rewritten: options replaced, arrays dropped or added.
    auto attempt = [&](const std::string& opts, const std::string& drop, bool extra) {
        const std::string dir = tmp.file("rel");
        std::system(("rm -rf '" + dir + "' '" + tmp.file("out") + "' && mkdir '" + dir + "' && cp '" + golden("marian_release") +
                     "'/* '" + dir + "/'").c_str());
        std::vector<NpzArray> arrays;
        for (const std::string& name : npz.names()) {
            if (name == drop) continue;
            if (name == "special:model.yml") {
                arrays.push_back({name, "I8", {opts.size()}, opts});
                continue;
            }
            const FloatArray a = npz.get(name);
            arrays.push_back({name, "F32", npz.shape(name), std::string(reinterpret_cast<const char*>(a.data()), a.size() * 4)});
        }
        if (extra) arrays.push_back({"Wpos", "F32", {2, 2}, std::string(16, '\0')});
        save_npz(dir + "/" + files.npz.substr(files.npz.find_last_of('/') + 1), arrays);
        const std::string e = tfm_test::error_of([&] { import_marian(dir, tmp.file("out")); });
        CHECK(path_present(tmp.file("out")) == e.empty());  // nothing written when refused
        return e;
    };
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string o = options;
        const std::size_t at = o.find(from);
        REQUIRE(at != std::string::npos);
        return o.replace(at, from.size(), to);
    };
    CHECK(attempt(options, "", false).empty());
    CHECK(attempt(replaced("transformer-preprocess: \"\"", "transformer-preprocess: n"), "", false)
              .find("transformer-preprocess") != std::string::npos);
    CHECK(attempt(replaced("transformer-ffn-activation: swish", "transformer-ffn-activation: gelu"), "", false)
              .find("transformer-ffn-activation") != std::string::npos);
    CHECK(attempt(replaced("type: transformer", "type: s2s"), "", false).find("type") != std::string::npos);
    CHECK(attempt(replaced("dim-emb: 16", "dim-emb: 32"), "", false).find("Wemb") != std::string::npos);
    // A value the file states is what the message names (not a table size derived from it).
    const std::string big = attempt(replaced("dim-emb: 16", "dim-emb: 65536"), "", false);
    CHECK(big.find("dim-emb") != std::string::npos);
    CHECK(big.find("65536") != std::string::npos);
    CHECK(big.find("max_position_embeddings") == std::string::npos);
    CHECK(attempt(options, "decoder_l2_context_Wk", false).find("decoder_l2_context_Wk") != std::string::npos);
    CHECK(attempt(options, "", true).find("Wpos") != std::string::npos);
    CHECK(attempt("type: [unclosed", "", false).find("YAML") != std::string::npos);
    CHECK(attempt(options, "special:model.yml", false).find("special:model.yml") != std::string::npos);
}

TEST_CASE("opus: an array holding NaN or Inf, or a vocabulary piece that is not UTF-8, is refused naming the file") {
    const MarianFiles files = marian_files(golden("marian_release"));
    const Npz npz = Npz::open(files.npz);
    tfm_test::TempDir tmp;
    const std::string dir = tmp.file("rel");
    std::system(("mkdir '" + dir + "' && cp '" + golden("marian_release") + "'/* '" + dir + "/'").c_str());
    std::vector<NpzArray> arrays;
    for (const std::string& name : npz.names()) {
        if (name == "special:model.yml") {
            const std::string t = npz.text(name);
            arrays.push_back({name, "I8", {t.size()}, t});
            continue;
        }
        FloatArray a = npz.get(name);
        if (name == "decoder_l1_ffn_W1") a(0, 3) = std::nanf("");
        arrays.push_back({name, "F32", npz.shape(name), std::string(reinterpret_cast<const char*>(a.data()), a.size() * 4)});
    }
    const std::string npz_path = dir + "/" + files.npz.substr(files.npz.find_last_of('/') + 1);
    save_npz(npz_path, arrays);
    for (const char* dtype : {"F32", "I8"}) {
        const std::string e = tfm_test::error_of([&] { import_marian(dir, tmp.file("out"), dtype); });
        CHECK(e == npz_path + ": tensor 'decoder_l1_ffn_W1' holds NaN at [0,3] (weights must be finite)");
        CHECK_FALSE(path_present(tmp.file("out")));
    }
    // A vocabulary piece that is not UTF-8 (its file named, never an internal JSON error).
    std::system(("cp '" + files.npz + "' '" + npz_path + "'").c_str());
    const std::string vocab = files.source_vocab;
    const std::string copy = dir + "/" + vocab.substr(vocab.find_last_of('/') + 1);
    std::ifstream in(vocab, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t colon = text.find(':', text.find('\n') + 1);  // the second entry's piece ends here
    REQUIRE(colon != std::string::npos);
    text.insert(colon, "\xff\xfe");
    std::ofstream(copy, std::ios::binary) << text;
    const std::string e = tfm_test::error_of([&] { import_marian(dir, tmp.file("out")); });
    CHECK(e.rfind(copy + ": piece ", 0) == 0);
    CHECK(e.find("is not valid UTF-8") != std::string::npos);
}

TEST_CASE("opus: .npz entries expand only within the archive's budget, errors name archive and entry (issue 49)") {
    // 96 MiB of zeros deflate to ~100 KB: more than 16 x the archive and the 64 MiB floor.
    tfm_craft::NpyEntry e;
    e.member = "Wemb.npy";
    e.header = "{'descr': '<f4', 'fortran_order': False, 'shape': (25165824,), }";
    e.data = std::string(std::size_t(96) << 20, '\0');
    e.deflate = true;
    const std::string bomb = tfm_craft::npz_bytes({e});
    REQUIRE(bomb.size() < (std::size_t(1) << 20));
    const std::string err = tfm_test::error_of([&] { Npz::from_bytes(bomb, "m.npz"); });
    CHECK(err.rfind("m.npz: zip entry 'Wemb.npy' expands to 1006633", 0) == 0);  // 96 MiB and the header
    CHECK(err.find("bytes, more than the 67108864 left of what a ") != std::string::npos);
    CHECK(err.find("raise TFM_ZIP_RATIO") != std::string::npos);
    // A header that claims more than the entry holds, and a deflated entry that reads as stored.
    e.data = std::string(400, '\0');
    e.header = "{'descr': '<f4', 'fortran_order': False, 'shape': (10, 10), }";
    CHECK(Npz::from_bytes(tfm_craft::npz_bytes({e}), "m.npz").get("Wemb").shape(1) == 10);
    e.header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 0, 4611686018427387904), }";
    e.data.clear();
    CHECK(tfm_test::error_of([&] { Npz::from_bytes(tfm_craft::npz_bytes({e}), "m.npz"); }).find("m.npz: array 'Wemb': shape") == 0);
    e.data = std::string(400, '\0');
    e.header = "{'descr': '<f4', 'fortran_order': False, 'shape': (10, 11), }";
    CHECK(tfm_test::error_of([&] { Npz::from_bytes(tfm_craft::npz_bytes({e}), "m.npz"); })
              .find("m.npz: array 'Wemb': shape [10,11] needs 440 bytes of data, the entry holds 400") != std::string::npos);
}

TEST_CASE("opus: .npz archives: shapes, text, bad entries") {
    tfm_test::TempDir tmp;
    const float v[6] = {1, 2, 3, 4, 5, 6};
    save_npz(tmp.file("a.npz"), {{"m", "F32", {2, 3}, std::string(reinterpret_cast<const char*>(v), sizeof v)},
                                 {"special:model.yml", "I8", {4}, std::string("ab\n\0", 4)}});
    const Npz npz = Npz::open(tmp.file("a.npz"));
    CHECK(npz.names() == std::vector<std::string>{"m", "special:model.yml"});
    CHECK(npz.shape("m") == Shape{2, 3});
    CHECK(npz.get("m")(1, 2) == 6.0f);
    CHECK(npz.text("special:model.yml") == "ab\n");
    CHECK(tfm_test::error_of([&] { npz.get("special:model.yml"); }).find("not a float") != std::string::npos);
    CHECK(tfm_test::error_of([&] { npz.get("x"); }).find("no array 'x'") != std::string::npos);
    std::ifstream in(tmp.file("a.npz"), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(tfm_test::error_of([&] { Npz::from_bytes(bytes.substr(0, bytes.size() / 2), "half.npz"); }).find("half.npz") !=
          std::string::npos);
    std::string flipped = bytes;
    const std::size_t data = flipped.find(std::string(reinterpret_cast<const char*>(v), 8));
    REQUIRE(data != std::string::npos);
    flipped[data + 1] ^= 0x40;  // a byte of the data: the CRC no longer matches
    const Npz bad = Npz::from_bytes(flipped, "crc.npz");
    CHECK(tfm_test::error_of([&] { bad.get("m"); }).find("crc.npz") != std::string::npos);
    CHECK(tfm_test::error_of([&] { Npz::from_bytes("PK\x03\x04garbage", "g.npz"); }).find("g.npz") != std::string::npos);
    CHECK(tfm_test::error_of([&] { Npz::from_bytes("{}", "j.npz"); }).find("not a .npz") != std::string::npos);
}
