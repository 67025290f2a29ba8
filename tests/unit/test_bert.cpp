// BERT-layout encoders (model/bert.hpp) and their WordPiece tokenizer against PyTorch and a
// Python tokenizer written from HF's definition (tests/golden/make_bert_golden.py): pieces of
// tricky text, token vectors and the three poolings for single sentences and pairs in one
// padded batch, cased and uncased, safetensors and pytorch_model.bin with old names.
#include <fstream>

#include "helpers.hpp"
#include "tfm/model/wordpiece.hpp"
#include "tfm/io/text_tensor.hpp"
#include "tfm/model/bert.hpp"

using namespace tfm;
using tfm_test::golden;

namespace {


std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream f(path);
    REQUIRE(f.good());
    std::vector<std::string> out;
    for (std::string l; std::getline(f, l);) out.push_back(l);
    return out;
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 't' || s[i + 1] == 'n')) {
            out += s[++i] == 't' ? '\t' : '\n';
        } else {
            out += s[i];
        }
    }
    return out;
}

const char* const kVariants[] = {"uncased", "cased"};

// The fixture's batch run through tfm: inputs from the pairs file, one padded batch.
struct Run {
    TokenBatch batch;
    std::vector<std::int64_t> segments;
    std::vector<float> x;  // [B*S,D]
};

Run run(const BertDir& md, const std::vector<std::string>& pairs) {
    Run r;
    std::vector<BertInput> inputs;
    for (const std::string& p : pairs) {
        const std::size_t tab = p.find('\t');
        const std::string a = p.substr(0, tab);
        const std::string b = tab == std::string::npos ? "" : p.substr(tab + 1);
        const std::string_view bv = b;
        inputs.push_back(bert_input(md.tokenizer, a, tab == std::string::npos ? nullptr : &bv,
                                    md.model.config.max_positions));
    }
    std::vector<std::vector<std::int64_t>> ids;
    for (const auto& in : inputs) ids.push_back(in.ids);
    r.batch = make_token_batch(ids, md.tokenizer.pad_id());
    r.segments.assign(r.batch.batch * r.batch.len, 0);
    for (std::size_t b = 0; b < inputs.size(); ++b)
        std::copy(inputs[b].segments.begin(), inputs[b].segments.end(), r.segments.begin() + long(b * r.batch.len));
    EncoderWorkspace ws;
    bert_forward(r.x, md.model, r.batch, r.segments, ws);
    return r;
}

}  // namespace

TEST_CASE("bert: WordPiece gives the reference tokenizer's pieces on tricky text") {
    for (const char* name : kVariants) {
        CAPTURE(name);
        const BertDir md = load_bert_dir(golden(std::string("bert_") + name));
        for (const std::string& row : read_lines(golden(std::string("bert_") + name + "_lines.tsv"))) {
            const std::size_t tab = row.rfind('\t');
            REQUIRE(tab != std::string::npos);
            const std::string text = unescape(row.substr(0, tab));
            CAPTURE(text);
            const auto want = parse_integers(row.substr(tab + 1));
            REQUIRE(want);
            CHECK(md.tokenizer.encode(text) == *want);
        }
    }
}

TEST_CASE("bert: HF BasicTokenizer's character rules, special tokens and vocab (issue 50)") {
    // A vocab in vocab.txt's order; "dup" appears twice: HF's load_vocab gives it its last line.
    const std::vector<std::string> pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "dup", "a", "b", "[", "]",
                                             "mask", "dup", "i\u0307stanbul", "istanbul", "\u03bf\u03b4\u03bf\u03c2"};
    WordPieceOptions cased;
    cased.lower_case = false;
    WordPieceOptions uncased;  // do_lower_case, strip_accents unset (follows it)
    WordPieceOptions keep_accents;
    keep_accents.strip_accents = 0;
    const WordPiece tok(pieces, uncased), keep(pieces, keep_accents), exact(pieces, cased);
    CHECK(tok.id("dup") == 11);
    // Special tokens as spelt stay one token, anywhere in the text; lower-cased they do not.
    CHECK(tok.encode("a [MASK] b") == std::vector<std::int64_t>{6, 4, 7});
    CHECK(tok.encode("a[MASK]b[SEP][CLS]") == std::vector<std::int64_t>{6, 4, 7, 3, 2});
    CHECK(tok.encode("[mask]") == std::vector<std::int64_t>{8, 10, 9});
    CHECK(exact.encode("[UNK][PAD]") == std::vector<std::int64_t>{1, 0});
    // Every C* category is dropped: private use (Co), unassigned (Cn), format (Cf).
    CHECK(tok.words("a\ue000b\U000e0001a\u0378b") == std::vector<std::string>{"abab"});
    // Line and paragraph separators split words as str.split() does.
    CHECK(tok.words("a\u2028b\u2029a") == std::vector<std::string>{"a", "b", "a"});
    // Lower case one character at a time, as HF's tokenize() (its "(.+?)" pattern) and the
    // tokenizers library's BertNormalizer do: U+0130 becomes i + U+0307 (kept without
    // strip_accents), a capital sigma is always σ, never final; with accents stripped the dot goes.
    CHECK(keep.words("\u0130stanbul") == std::vector<std::string>{"i\u0307stanbul"});
    CHECK(keep.encode("\u0130stanbul") == std::vector<std::int64_t>{12});
    CHECK(tok.words("\u0130stanbul") == std::vector<std::string>{"istanbul"});
    CHECK(keep.words("\u039f\u0394\u039f\u03a3") == std::vector<std::string>{"\u03bf\u03b4\u03bf\u03c3"});
    CHECK(keep.encode("\u039f\u0394\u039f\u03a3") == std::vector<std::int64_t>{1});  // "οδοσ" is not "οδος"
    CHECK(keep.encode("\u03bf\u03b4\u03bf\u03c2") == std::vector<std::int64_t>{14});
    CHECK(keep.words("\u03a3\u0391") == std::vector<std::string>{"\u03c3\u03b1"});
}

TEST_CASE("bert: added tokens, never_split and do_split_on_punc as HF's tokenize() (issue 50)") {
    const std::vector<std::string> pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "<", ">", "x",
                                             "foo", "##bar", "!", "<e1>", "new", "-", "Hello"};
    WordPieceOptions o;
    o.added = {{"<E1>", 41, true, false},    // a special token past vocab.txt (added_tokens_decoder)
               {"<e1>", -1, true, false},    // a special token in vocab.txt
               {"NewTok", 40, false, true},  // added_tokens.json: non-special, normalized: stored lower-cased
               {"[MASK]", -1, true, false}}; // listed again: still one token
    o.never_split = {"Hello", "a-b"};
    const WordPiece t(pieces, o);
    CHECK(t.max_id() == 41);
    // Special tokens as spelt stay whole; lower-casing spares them and only them.
    CHECK(t.encode("a<E1>b <e1>") == std::vector<std::int64_t>{5, 41, 6, 13});
    CHECK(t.encode("<e1 >") == std::vector<std::int64_t>{7, 1, 8});  // not as spelt: "<", "e1" ([UNK]), ">"
    // A non-special added token is matched after lower-casing: every spelling of it.
    CHECK(t.encode("NEWTOK newtok x") == std::vector<std::int64_t>{40, 40, 9});
    // never_split words: lower-cased by the first pass like all text (so "Hello" no longer
    // matches), kept whole when they still match ("a-b" is not split at '-'), then looked up.
    CHECK(t.encode("Hello") == std::vector<std::int64_t>{1});
    CHECK(t.encode("a-b") == std::vector<std::int64_t>{1});
    WordPieceOptions cased = o;
    cased.lower_case = false;
    const WordPiece c(pieces, cased);
    CHECK(c.encode("Hello a-b foobar!") == std::vector<std::int64_t>{16, 1, 10, 11, 12});
    cased.split_on_punc = false;
    CHECK(WordPiece(pieces, cased).encode("foobar!") == std::vector<std::int64_t>{1});  // "foobar!" is one word
    // An added token without an id anywhere is an error that names it.
    WordPieceOptions bad;
    bad.added = {{"<nothere>", -1, true, false}};
    CHECK_THROWS_WITH_AS(WordPiece(pieces, bad, "vocab.txt"), doctest::Contains("'<nothere>' has no id"), tfm::Error);
}

TEST_CASE("bert: token vectors and pooled vectors match PyTorch, pairs and padding included") {
    for (const char* name : kVariants) {
        CAPTURE(name);
        const BertDir md = load_bert_dir(golden(std::string("bert_") + name));
        CHECK(md.model.pooler.has_value() == (std::string(name) == "uncased"));
        auto io = tfm_test::read_file(golden(std::string("bert_") + name + "_io.npy"));
        REQUIRE(io.size() == 7);
        const IdArray ids = as_ids(io[0]), segments = as_ids(io[1]), lengths = as_ids(io[2]);
        const FloatArray hidden = as_float(io[3]);
        const Run r = run(md, read_lines(golden(std::string("bert_") + name + "_pairs.tsv")));
        REQUIRE(r.batch.batch == ids.shape(0));
        REQUIRE(r.batch.len == ids.shape(1));
        const std::size_t d = md.model.config.d_model, s = r.batch.len;
        for (std::size_t b = 0; b < r.batch.batch; ++b) {
            CAPTURE(b);
            REQUIRE(r.batch.lengths[b] == std::size_t(lengths(b)));
            for (std::size_t i = 0; i < s; ++i) {
                CHECK(r.batch.ids[b * s + i] == ids(b, i));
                CHECK(r.segments[b * s + i] == segments(b, i));
            }
            for (std::size_t i = 0; i < r.batch.lengths[b]; ++i)
                for (std::size_t j = 0; j < d; ++j)
                    REQUIRE(r.x[(b * s + i) * d + j] == doctest::Approx(hidden(b, i, j)).epsilon(1e-4).scale(1));
            const BertPooling kinds[] = {BertPooling::Cls, BertPooling::Mean, BertPooling::Pooler};
            for (std::size_t k = 0; k < 3; ++k) {
                if (kinds[k] == BertPooling::Pooler && !md.model.pooler) {
                    std::vector<float> v(d);
                    CHECK_THROWS_AS(pool(v.data(), mat(r.x.data() + b * s * d, r.batch.lengths[b], d), kinds[k], md.model.pooler ? &*md.model.pooler : nullptr),
                                    UsageError);
                    continue;
                }
                const FloatArray want = as_float(io[4 + k]);
                std::vector<float> v(d);
                pool(v.data(), mat(r.x.data() + b * s * d, r.batch.lengths[b], d), kinds[k], md.model.pooler ? &*md.model.pooler : nullptr);
                for (std::size_t j = 0; j < d; ++j) CHECK(v[j] == doctest::Approx(want(b, j)).epsilon(1e-4).scale(1));
            }
        }
        // Alone, each sequence gives what it gave in the padded batch.
        const auto pairs = read_lines(golden(std::string("bert_") + name + "_pairs.tsv"));
        for (std::size_t b = 0; b < pairs.size(); ++b) {
            const Run one = run(md, {pairs[b]});
            for (std::size_t i = 0; i < one.batch.len * d; ++i)
                REQUIRE(one.x[i] == doctest::Approx(r.x[b * s * d + i]).epsilon(1e-5).scale(1));
        }
    }
}

TEST_CASE("bert: inputs are cut longest side first, and an empty line is an empty input") {
    const BertDir md = load_bert_dir(golden("bert_uncased"));
    const WordPiece& tok = md.tokenizer;
    const std::string_view b = "unbelievable unhappiness antidisestablishmentarianism";
    BertInput in = bert_input(tok, "a b c d e f g h", &b, 12);
    CHECK(in.truncated);
    CHECK(in.ids.size() == 12);
    CHECK(in.ids.front() == tok.cls_id());
    CHECK(in.ids.back() == tok.sep_id());
    CHECK(std::count(in.ids.begin(), in.ids.end(), tok.sep_id()) == 2);
    CHECK(in.full_length > 12);
    in = bert_input(tok, "", nullptr, 40);
    CHECK(in.ids.empty());
    in = bert_input(tok, "a b c d e", nullptr, 40, 4);  // --max-input-length 4: [CLS] a b [SEP]
    CHECK(in.ids.size() == 4);
    CHECK(in.truncated);
}

TEST_CASE("bert: bad model directories are clear errors") {
    tfm_test::TempDir dir;
    const std::string src = golden("bert_uncased");
    auto copy = [&](const std::string& file) {
        std::system(("cp '" + src + "/" + file + "' '" + dir.path + "/'").c_str());
    };
    copy("config.json");
    copy("model.safetensors");
    CHECK(is_bert_dir(dir.path));
    CHECK_THROWS_WITH_AS(load_bert_dir(dir.path), doctest::Contains("missing vocab.txt"), Error);
    copy("vocab.txt");
    CHECK_NOTHROW(load_bert_dir(dir.path));
    std::ofstream(dir.file("vocab.txt")) << "[PAD]\n[UNK]\n[CLS]\n";
    CHECK_THROWS_WITH_AS(load_bert_dir(dir.path), doctest::Contains("no [SEP] piece"), Error);
    copy("vocab.txt");
    std::ofstream(dir.file("config.json")) << R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 3,
        "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 198, "max_position_embeddings": 40})";
    CHECK_THROWS_WITH_AS(load_bert_dir(dir.path), doctest::Contains("encoder.layer.2"), Error);
    std::ofstream(dir.file("config.json")) << R"({"model_type": "bert", "hidden_size": 30, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 198, "max_position_embeddings": 40})";
    CHECK_THROWS_WITH_AS(load_bert_dir(dir.path), doctest::Contains("not divisible"), Error);
    std::ofstream(dir.file("config.json")) << R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 198, "max_position_embeddings": 40,
        "hidden_act": "relu"})";
    CHECK_THROWS_WITH_AS(load_bert_dir(dir.path), doctest::Contains("hidden_act"), Error);
}

TEST_CASE("bert: the tokenizer files of a model directory, hostile ones refused (issue 50)") {
    tfm_test::TempDir dir;
    const auto put = [&](const char* name, const std::string& text) {
        std::ofstream(dir.path + "/" + name) << text;
    };
    put("tokenizer_config.json", R"({"do_lower_case": false, "never_split": ["[X]"], "do_split_on_punc": false,
        "additional_special_tokens": ["<a>"], "unk_token": {"content": "<unk>", "special": true},
        "added_tokens_decoder": {"7": {"content": "<b>", "special": false, "normalized": false}}})");
    put("special_tokens_map.json", R"({"mask_token": "<mask>", "additional_special_tokens": [{"content": "<c>"}]})");
    put("added_tokens.json", R"({"<a>": 9, "<d>": 8})");
    const WordPieceOptions o = read_wordpiece_options(dir.path, 10);
    CHECK_FALSE(o.lower_case);
    CHECK_FALSE(o.split_on_punc);
    CHECK(o.never_split == std::vector<std::string>{"[X]"});
    CHECK(o.unk == "<unk>");
    CHECK(o.mask == "<mask>");
    std::vector<std::string> added;
    for (const AddedToken& t : o.added) added.push_back(t.content + ":" + std::to_string(t.id) + (t.special ? "s" : ""));
    CHECK(added == std::vector<std::string>{"<c>:-1s", "<a>:-1s", "<b>:7", "<a>:9s", "<d>:8"});
    // Hostile values: ids past the model's rows, not integers, tokens of the wrong kind or size.
    for (const std::string& bad : {std::string(R"({"<a>": 10})"), std::string(R"({"<a>": -1})"), std::string(R"({"<a>": 1.5})"),
                                   std::string(R"({"": 1})"), std::string(R"([1, 2])"),
                                   "{\"" + std::string(5000, 'x') + "\": 1}"}) {
        CAPTURE(bad);
        put("added_tokens.json", bad);
        CHECK_THROWS_AS(read_wordpiece_options(dir.path, 10), tfm::Error);
    }
    put("added_tokens.json", "{}");
    put("tokenizer_config.json", R"({"added_tokens_decoder": {"99999999999999999999": {"content": "<z>"}}})");
    CHECK_THROWS_WITH_AS(read_wordpiece_options(dir.path, 10), doctest::Contains("is not an integer from 0 to 9"), tfm::Error);
    put("tokenizer_config.json", R"({"never_split": [3]})");
    CHECK_THROWS_WITH_AS(read_wordpiece_options(dir.path, 10), doctest::Contains("must be a string"), tfm::Error);
}

TEST_CASE("bert: transformers' own test_tokenization_bert.py vectors") {
    // setUp's vocab, and the pieces test_offsets_with_special_characters and
    // test_change_tokenize_chinese_chars need.
    const std::vector<std::string> pieces = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "want", "##want", "##ed", "wa",
                                             "un", "runn", "##ing", ",", "low", "lowest", "A", "a", "na", "##ï", "##ve",
                                             "naive", "Allen", "##NL", "##P", "allen", "##nl", "##p", "sentence", ".",
                                             "的", "人", "有", "##人", "##有"};
    WordPieceOptions lower;  // BertTokenizer's defaults
    WordPieceOptions lower_keep = lower, lower_strip = lower, cased, cased_keep, cased_strip;
    lower_keep.strip_accents = 0;
    lower_strip.strip_accents = 1;
    cased.lower_case = cased_keep.lower_case = cased_strip.lower_case = false;
    cased_keep.strip_accents = 0;
    cased_strip.strip_accents = 1;
    using W = std::vector<std::string>;
    const WordPiece tok(pieces, lower);
    // test_full_tokenizer
    CHECK(tok.encode("UNwant\u00E9d,running") == std::vector<std::int64_t>{9, 6, 7, 12, 10, 11});
    // test_chinese
    CHECK(tok.words("ah\u535A\u63A8zz") == W{"ah", "\u535A", "\u63A8", "zz"});
    // test_basic_tokenizer_lower / _strip_accents_false / _true / _default
    const std::string text = " \tHeLLo!how  \n Are yoU?  ", umlaut = " \tH\u00e4LLo!how  \n Are yoU?  ";
    CHECK(tok.words(text) == W{"hello", "!", "how", "are", "you", "?"});
    CHECK(tok.words("H\u00E9llo") == W{"hello"});
    CHECK(WordPiece(pieces, lower_keep).words(umlaut) == W{"h\u00e4llo", "!", "how", "are", "you", "?"});
    CHECK(WordPiece(pieces, lower_keep).words("H\u00E9llo") == W{"h\u00E9llo"});
    CHECK(WordPiece(pieces, lower_strip).words(umlaut) == W{"hallo", "!", "how", "are", "you", "?"});
    CHECK(tok.words(umlaut) == W{"hallo", "!", "how", "are", "you", "?"});
    // test_basic_tokenizer_no_lower / _strip_accents_false / _true
    CHECK(WordPiece(pieces, cased).words(text) == W{"HeLLo", "!", "how", "Are", "yoU", "?"});
    CHECK(WordPiece(pieces, cased_keep).words(umlaut) == W{"H\u00e4LLo", "!", "how", "Are", "yoU", "?"});
    CHECK(WordPiece(pieces, cased_strip).words(umlaut) == W{"HaLLo", "!", "how", "Are", "yoU", "?"});
    // test_basic_tokenizer_respects_never_split_tokens
    WordPieceOptions never = cased;
    never.never_split = {"[UNK]"};
    CHECK(WordPiece(pieces, never).words(text + "[UNK]") == W{"HeLLo", "!", "how", "Are", "yoU", "?", "[UNK]"});
    // test_basic_tokenizer_splits_on_punctuation
    CHECK(tok.words("a\n'll !!to?'d of, can't.") ==
          W{"a", "'", "ll", "!", "!", "to", "?", "'", "d", "of", ",", "can", "'", "t", "."});
    // test_basic_tokenizer_remove_control_chars_true: LRM and RLM go
    CHECK(tok.words("\u200E\u200F").empty());
    // test_wordpiece_tokenizer (its vocab is setUp's)
    CHECK(tok.encode("").empty());
    CHECK(tok.encode("unwanted running") == std::vector<std::int64_t>{9, 6, 7, 10, 11});
    CHECK(tok.encode("unwantedX running") == std::vector<std::int64_t>{0, 10, 11});
    // test_is_whitespace: U+00A0 separates words
    CHECK(tok.words("a\u00A0b") == W{"a", "b"});
    // test_clean_text: "Test" and "test" are [UNK], a soft hyphen nothing
    CHECK(tok.encode("Test") == std::vector<std::int64_t>{0});
    CHECK(tok.encode("\xc2\xad").empty());
    CHECK(tok.encode("test") == std::vector<std::int64_t>{0});
    // test_offsets_with_special_characters: cased and uncased, [MASK] whole
    const std::string sentence = "A, na\u00efve [MASK] AllenNLP sentence.";
    CHECK(WordPiece(pieces, cased).encode(sentence) == std::vector<std::int64_t>{15, 12, 17, 18, 19, 4, 21, 22, 23, 27, 28});
    CHECK(tok.encode(sentence) == std::vector<std::int64_t>{16, 12, 20, 4, 24, 25, 26, 27, 28});
    // test_change_tokenize_chinese_chars
    CHECK(tok.encode("的人有") == std::vector<std::int64_t>{29, 30, 31});
    WordPieceOptions no_cjk = lower;
    no_cjk.chinese_chars = false;
    CHECK(WordPiece(pieces, no_cjk).encode("的人有") == std::vector<std::int64_t>{29, 32, 33});
}
