// Vocabulary shortlists (decode/shortlist.hpp): Marian's text and binary formats and
// CTranslate2's vocabulary map read as their tools define them (Marian's
// LexicalShortlistGenerator: lines "target source probability", NULL skipped, unknown words
// <unk>, the BEST most probable above THRESHOLD, ids below FIRST; marian-conv's binary layout and
// checksum; CTranslate2's VocabularyMap: "n-gram<TAB>targets", the empty n-gram always), hostile
// files refused, the restricted output layer, and IBM model 1's lexical table.
#include <cstring>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "helpers.hpp"
#include "tfm/decode/generation_settings.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::golden;

namespace shortlist_test {  // named: the unit tests build in unity batches

std::string temp_file(const std::string& name, const std::string& bytes) {
    const std::string path = "/tmp/tfm_shortlist_" + std::to_string(::getpid()) + "_" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

const ModelDir& nllb() {
    static const ModelDir md = load_model_dir(golden("m2m_nllb"));
    return md;
}

std::int64_t tid(const std::string& piece) { return nllb().tokenizer.target_id(piece); }
std::int64_t sid(const std::string& piece) { return nllb().tokenizer.source_id(piece); }

std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// Marian's hash of the words after magic and checksum (util::hashMem, std::hash of an integer
// being the integer), written here again to craft damaged files with a valid checksum.
void fix_checksum(std::string& b) {
    std::uint64_t seed = 0;
    for (std::size_t i = 16; i + 8 <= b.size(); i += 8) {
        std::uint64_t v;
        std::memcpy(&v, b.data() + i, 8);
        seed ^= v + 0x9e3779b9ull + (seed << 6) + (seed >> 2);
    }
    std::memcpy(b.data() + 8, &seed, 8);
}

const char* kLex =
    "▁dog ▁ein 0.5\n"
    "▁ball ▁ein 0.3\n"
    "▁a ▁ein 0.3\n"  // a tie with ▁ball: Marian keeps the higher id first
    "▁re ▁ein 0.01\n"
    "NULL ▁ein 0.9\n"
    "▁Mann ▁rot 0.7\n"
    "Zzzz ▁rot 0.6\n"  // a target word the vocabulary lacks: <unk>
    "▁c NULL 0.2\n";

}  // namespace shortlist_test

using namespace shortlist_test;

TEST_CASE("shortlist: Marian's text format, pruned as Marian prunes it") {
    const ModelDir& md = nllb();
    const std::string path = temp_file("lex.txt", kLex);
    const Shortlist s = Shortlist::marian_text(path, md.tokenizer, md.model.config, 3, 2);
    const std::vector<std::int64_t> ein = {sid("▁ein")};
    // ids 0..2, then ▁ein's two best: ▁dog (0.5), and of the tie the higher id
    for (const char* p : {"▁dog", "▁ball", "▁a", "▁re", "▁Mann", "▁c"}) REQUIRE(tid(p) > 3);
    const std::int64_t tie = std::max(tid("▁ball"), tid("▁a"));
    CHECK(s.targets({&ein}, {}) == sorted({0, 1, 2, tid("▁dog"), tie}));
    const std::vector<std::int64_t> rot = {sid("▁rot")};
    CHECK(s.targets({&rot}, {77}) == sorted({0, 1, 2, tid("▁Mann"), md.tokenizer.unk_id(), 77}));
    // a threshold drops what is not more probable than it
    const Shortlist t = Shortlist::marian_text(path, md.tokenizer, md.model.config, 0, 10, 0.4);
    CHECK(t.targets({&ein}, {}) == std::vector<std::int64_t>{tid("▁dog")});
    CHECK(t.targets({&ein, &rot}, {}) == sorted({tid("▁dog"), tid("▁Mann"), md.tokenizer.unk_id()}));
    // errors name the file and the line
    CHECK(error_of([&] { Shortlist::marian_text(temp_file("bad1", "a b\n"), md.tokenizer, md.model.config, 0, 1); })
              .find("line 1: not 'target source probability'") != std::string::npos);
    CHECK(error_of([&] { Shortlist::marian_text(temp_file("bad2", "a b c\n"), md.tokenizer, md.model.config, 0, 1); })
              .find("is not a number") != std::string::npos);
    CHECK(error_of([&] { Shortlist::marian_text(temp_file("bad3", "a b nan\n"), md.tokenizer, md.model.config, 0, 1); })
              .find("is not a number") != std::string::npos);
}

TEST_CASE("shortlist: Marian's binary format, written and read back, damage refused") {
    const ModelDir& md = nllb();
    const std::string bin = marian_binary_shortlist(kLex, md.tokenizer, md.model.config, 3, 2);
    const std::uint64_t magic = 0xF11A48D5013417F5ull;
    CHECK(std::memcmp(bin.data(), &magic, 8) == 0);
    const Shortlist text = Shortlist::marian_text(temp_file("lex.txt", kLex), md.tokenizer, md.model.config, 3, 2);
    const Shortlist b = Shortlist::marian(temp_file("lex.bin", bin), md.tokenizer, md.model.config, 999, 999);
    for (const char* piece : {"▁ein", "▁rot", "▁Mann"}) {
        const std::vector<std::int64_t> src = {sid(piece), 2};
        CHECK(b.targets({&src}, {}) == text.targets({&src}, {}));  // FIRST and BEST come from the file
    }
    auto refused = [&](std::string bytes, bool fix) {
        if (fix) fix_checksum(bytes);
        return error_of([&] { Shortlist::marian_binary(temp_file("damaged.bin", bytes), md.model.config); });
    };
    CHECK(refused(bin.substr(0, 40), false).find("too short") != std::string::npos);
    CHECK(refused(bin.substr(0, bin.size() - 4), true).find("do not match") != std::string::npos);
    std::string flipped = bin;
    flipped[bin.size() - 1] ^= 1;
    CHECK(refused(flipped, false).find("checksum mismatch") != std::string::npos);
    std::string huge = bin;  // a count that would overflow the size computation
    const std::uint64_t big = ~std::uint64_t(0) / 4;
    std::memcpy(huge.data() + 40, &big, 8);
    CHECK(refused(huge, true).find("do not match") != std::string::npos);
    std::string wrong = bin;  // a target id past the vocabulary
    const std::uint32_t past = std::uint32_t(md.model.config.target_vocab());
    std::memcpy(wrong.data() + bin.size() - 4, &past, 4);
    CHECK(refused(wrong, true).find("outside the model's vocabulary") != std::string::npos);
    std::string order = bin;  // offsets that go backwards
    const std::uint64_t back = 5;
    std::memcpy(order.data() + 48, &back, 8);
    CHECK(refused(order, true).find("lies after the next one") != std::string::npos);
    std::string magicless = bin;
    magicless[0] ^= 1;
    CHECK(refused(magicless, true).find("wrong magic") != std::string::npos);
}

TEST_CASE("shortlist: CTranslate2's vocabulary map, n-grams and the always-list") {
    const ModelDir& md = nllb();
    const std::string map = "\t▁c ▁re\n▁ein\t▁dog\n▁ein ▁rot\t▁ball Qqqq\n▁rot\t▁Mann\nnot-a-piece\t▁a\n";
    const Shortlist s = Shortlist::vocabulary_map(temp_file("vmap.txt", map), md.tokenizer, md.model.config);
    const std::vector<std::int64_t> one = {sid("▁ein"), 2}, two = {sid("▁ein"), sid("▁rot"), 2};
    CHECK(s.targets({&one}, {}) == sorted({tid("▁c"), tid("▁re"), tid("▁dog")}));
    CHECK(s.targets({&two}, {}) == sorted({tid("▁c"), tid("▁re"), tid("▁dog"), tid("▁Mann"), tid("▁ball"),
                                           md.tokenizer.unk_id()}));
    CHECK(error_of([&] { Shortlist::vocabulary_map(temp_file("vbad", "▁ein ▁rot\n"), md.tokenizer, md.model.config); })
              .find("no tab") != std::string::npos);
}

TEST_CASE("shortlist: the restricted output layer searches the shortlist's rows only") {
    ModelDir md = load_model_dir(golden("m2m_nllb"));
    md.tokenizer.set_source_language("deu_Latn");
    const std::vector<std::vector<std::int64_t>> sources = {md.tokenizer.encode("ein Hund rennt am See ."),
                                                            md.tokenizer.encode("ein Kind spielt")};
    DecodeOptions opt;
    apply_generation(opt, md.generation, {});
    opt.forced_first_all = md.tokenizer.language_id("eng_Latn", "x");
    for (std::size_t beam : {1, 4}) {
        CAPTURE(beam);
        opt.search.beam = beam;
        opt.shortlist.reset();
        const auto full = translate_sources(md.model, sources, opt);
        // every id: the same search
        DecodeOptions every = opt;
        every.shortlist = std::make_shared<const Shortlist>(Shortlist::marian_text(
            temp_file("none.txt", ""), md.tokenizer, md.model.config, md.model.config.target_vocab(), 1));
        const auto same = translate_sources(md.model, sources, every);
        for (std::size_t i = 0; i < sources.size(); ++i) {
            CHECK(same[i][0].ids == full[i][0].ids);
            CHECK(same[i][0].score == doctest::Approx(full[i][0].score).epsilon(1e-5));
        }
        // only the tokens of the full search's outputs (and eos): greedy keeps its path, each
        // token more probable than before (the distribution is over fewer tokens)
        std::string kept = "\t";
        for (const auto& h : full)
            for (std::int64_t id : h[0].ids) kept += md.tokenizer.target_piece(id) + " ";
        DecodeOptions few = opt;
        few.shortlist = std::make_shared<const Shortlist>(
            Shortlist::vocabulary_map(temp_file("few.txt", kept + "\n"), md.tokenizer, md.model.config));
        const auto restricted = translate_sources(md.model, sources, few);
        if (beam == 1)
            for (std::size_t i = 0; i < sources.size(); ++i) {
                CHECK(restricted[i][0].ids == full[i][0].ids);
                for (std::size_t j = 1; j < full[i][0].token_logprobs.size(); ++j)
                    CHECK(restricted[i][0].token_logprobs[j] >= full[i][0].token_logprobs[j]);
            }
        for (const auto& h : restricted)  // beam: nothing outside the list
            for (std::int64_t id : h[0].ids) CHECK(kept.find(md.tokenizer.target_piece(id) + " ") != std::string::npos);
    }
}

TEST_CASE("lexical_table: IBM model 1 finds each word's translation") {
    const ModelDir& md = nllb();
    // one piece each in the fixture's vocabulary: ein ~ a, Mann ~ dog, rot ~ ball
    std::string de, en;
    for (int i = 0; i < 20; ++i) {
        de += "ein Mann\nein rot\nMann rot\n";
        en += "a dog\na ball\ndog ball\n";
    }
    const std::string table = lexical_table(temp_file("c.de", de), temp_file("c.en", en), md.tokenizer, {});
    auto best_of = [&](const std::string& src) {
        std::istringstream in(table);
        std::string t, s, p;
        while (in >> t >> s >> p)
            if (s == src) return t;  // the first line of a source is its most probable target
        return std::string();
    };
    CHECK(best_of("▁ein") == "▁a");
    CHECK(best_of("▁Mann") == "▁dog");
    CHECK(best_of("▁rot") == "▁ball");
    CHECK(error_of([&] { lexical_table(temp_file("c1", "a\nb\n"), temp_file("c2", "a\n"), md.tokenizer, {}); })
              .find("ends after line 1") != std::string::npos);
    // A pair longer than max_length pieces is skipped: here every pair is
    LexiconOptions one;
    one.max_length = 1;
    CHECK(error_of([&] { lexical_table(temp_file("c.de", de), temp_file("c.en", en), md.tokenizer, one); })
              .find("at most 1 pieces each") != std::string::npos);
}
