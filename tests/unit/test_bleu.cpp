// sacreBLEU's metrics on cases worked by hand and on its own unit tests' vectors
// (test/test_bleu.py, test_chrf.py, test_ter.py of sacreBLEU 2.6.0); the full comparison
// against sacreBLEU's output is tests/cli/sacrebleu_parity.sh.
#include <cmath>
#include <tuple>

#include "helpers.hpp"
#include "tfm/base/unicode.hpp"
#include "tfm/eval/bleu.hpp"
#include "tfm/eval/chrf.hpp"
#include "tfm/eval/numpy_random.hpp"
#include "tfm/eval/report.hpp"
#include "tfm/eval/significance.hpp"
#include "tfm/eval/ter.hpp"

using namespace tfm;

namespace {

double corpus(const Metric& m, const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs) {
    TestSet t;
    t.systems = {hyps};
    t.references = refs;
    return m.score(sum_stats(segment_stats(m, t, 0), m.width()).data()).score;
}

std::vector<std::string_view> words(const std::string& s) {
    std::vector<std::string_view> out;
    static std::vector<std::string> keep;
    keep.clear();
    const std::u32string cps = decode_utf8(s);
    for (std::u32string_view w : py_split(cps)) keep.push_back(encode_utf8(w));
    for (const auto& k : keep) out.push_back(k);
    return out;
}

}  // namespace

TEST_CASE("bleu: 13a tokenisation") {
    CHECK(tokenize_13a("Hello, world. It's 3.5-4 km!") == "Hello , world . It's 3.5 - 4 km !");
    CHECK(tokenize_13a("a (b) \"c\" d/e $5 1,000 x.") == "a ( b ) \" c \" d / e $ 5 1,000 x .");
    CHECK(tokenize_13a("&quot;A&amp;B&quot; &lt;x&gt;") == "\" A & B \" < x >");
    CHECK(tokenize_13a("Grüße, Straße.") == "Grüße , Straße .");
    CHECK(tokenize_13a("  many   spaces  ") == "many spaces");
}

TEST_CASE("bleu: intl and char tokenizers") {
    const auto tok = [](BleuTokenizer t, const std::string& s) { return encode_utf8(tokenize(t, decode_utf8(s))); };
    // Unicode punctuation apart unless next to a number; symbols apart.
    CHECK(tok(BleuTokenizer::intl, "Hello, «world»! 3.5 €10") == "Hello , « world » ! 3.5 € 10");
    CHECK(tok(BleuTokenizer::intl, "year 2019.") == "year 2019.");  // mteval-v14 keeps it, as sacreBLEU notes
    CHECK(tok(BleuTokenizer::chars, "ab c\u00a0d") == "a b c d");
    CHECK(tok(BleuTokenizer::none, " a  b\u3000c ") == "a b c");
    CHECK_THROWS_WITH_AS(parse_bleu_tokenizer("zh"), doctest::Contains("none, 13a, intl, char"), tfm::Error);
}

TEST_CASE("bleu: words split where Python's str.split() splits, as sacreBLEU's do (issue 50)") {
    const std::string spaces[] = {"\t", "\n", "\v", "\f", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\u0085", "\u00a0",
                                  "\u1680", "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"};
    for (const std::string& sp : spaces) {
        CAPTURE(sp);
        CHECK(words("a" + sp + "b" + sp + sp + "c" + sp) == std::vector<std::string_view>{"a", "b", "c"});
    }
    CHECK(words("a\u200bb") == std::vector<std::string_view>{"a\u200bb"});  // ZERO WIDTH SPACE is not a space
    CHECK(words("").empty());
    // The case: no-break spaces between the words score as spaces do.
    CHECK(corpus_bleu({"The\u00a0cat\u00a0sat on the mat."}, {"The cat sat on the mat."}).score == doctest::Approx(100.0));
}

TEST_CASE("bleu: no n-gram in common scores 0, as sacreBLEU's degenerate cases (test/test_bleu.py)") {
    // sacreBLEU's issue #141: 'this is a cat' against 'okay thanks' is 0.00, not a smoothed 7.99.
    const BleuScore none = corpus_bleu({"this is a cat"}, {"okay thanks"});
    CHECK(none.score == 0.0);
    CHECK(none.precisions == std::array<double, 4>{});
    CHECK(none.verbose() == "0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 2.000 hyp_len = 4 ref_len = 2)");
    // test_corpus_bleu_cases: empty hypotheses are scored (not dropped), 0.0.
    CHECK(corpus_bleu({"", "", ""}, {"The dog bit the man.", "It was not unexpected.", "The man bit him first."}).score == 0.0);
    // test_case_degenerate_stats (the rows whose counts are all 0): 0 whatever the lengths.
    for (const auto& [total, hyp, ref] : {std::tuple<std::array<double, 4>, double, double>{{4, 4, 2, 1}, 0, 1},
                                          {{10, 11, 12, 0}, 14, 10},
                                          {{0, 0, 0, 0}, 0, 0},
                                          {{0, 0, 0, 0}, 1, 5}}) {
        const double stats[10] = {hyp, ref, 0, 0, 0, 0, total[0], total[1], total[2], total[3]};
        CHECK(compute_bleu(stats, BleuSmooth::exp, -1, false).score == 0.0);
    }
    // test_case_scoring: counts [9,7,5,3] of [10,8,6,4], lengths 11 and 11: 0.8375922397.
    const double s[10] = {11, 11, 9, 7, 5, 3, 10, 8, 6, 4};
    CHECK(compute_bleu(s, BleuSmooth::exp, -1, false).score == doctest::Approx(83.75922397).epsilon(1e-9));
    // test_case_statistics: 'am I am a character sequence' against 'I am a symbol string
    // sequence a a': matches [4,2,1,0] of [6,5,4,3].
    double st[10];
    Bleu().segment("am I am a character sequence", {"I am a symbol string sequence a a"}, st);
    CHECK(std::vector<double>(st + 2, st + 10) == std::vector<double>{4, 2, 1, 0, 6, 5, 4, 3});
}

TEST_CASE("bleu: sacreBLEU's test_bleu.py corpus, effective-order and smoothing cases") {
    // test_corpus_bleu_cases: two reference streams, each tokenizer.
    const std::vector<std::string> hyps = {"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."};
    const std::vector<std::vector<std::string>> refs = {
        {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
        {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};
    for (const auto& [tok, expected] : {std::pair<BleuTokenizer, double>{BleuTokenizer::v13a, 48.530827},
                                        {BleuTokenizer::none, 49.1919566},
                                        {BleuTokenizer::intl, 43.91623493}}) {
        BleuOptions o;
        o.tokenizer = tok;
        CHECK(corpus(Bleu(o), hyps, refs) == doctest::Approx(expected).epsilon(1e-8));
    }
    BleuOptions none;
    none.smooth = BleuSmooth::none;
    CHECK(corpus(Bleu(none), hyps, refs) == doctest::Approx(48.530827).epsilon(1e-8));
    CHECK(corpus(Bleu(), {"", "", ""}, refs) == 0.0);
    // test_case_effective_order: raw_corpus_bleu (no tokenizer, floor 0.01, effective order).
    double st[10];
    for (const auto& [hyp, ref, expected] : {std::tuple<const char*, const char*, double>{"test", "a test", 0.3678794411714425},
                                             {"a test", "a test", 1.0},
                                             {"a little test", "a test", 0.03218297948685433}}) {
        Bleu b({BleuTokenizer::none, false, BleuSmooth::floor, 0.01, true});
        CHECK(corpus(b, {hyp}, {{ref}}) == doctest::Approx(100 * expected).epsilon(1e-8));
    }
    // Each smoothing on one sentence (values from sacreBLEU 2.6.0's sentence_score).
    for (const auto& [smooth, expected] : {std::pair<BleuSmooth, double>{BleuSmooth::none, 61.29752413741059},
                                           {BleuSmooth::exp, 61.29752413741059},
                                           {BleuSmooth::floor, 61.29752413741059},
                                           {BleuSmooth::add_k, 66.33400689531753}}) {
        BleuOptions o;
        o.smooth = smooth;
        Bleu b(o);
        b.segment("The cat sat on the mat.", {"The cat sat on the red mat."}, st);
        CHECK(b.sentence(st).score == doctest::Approx(expected).epsilon(1e-12));
    }
    // Multiple references: the closest length (the shorter on a tie), the larger count of each n-gram.
    Bleu b;
    b.segment("the cat is on the mat", {"the cat is on the mat there", "a cat on the mat"}, st);
    CHECK(st[1] == 5);
    CHECK(st[2] == 6);
}

TEST_CASE("chrf: sacreBLEU's test_chrf.py vectors") {
    ChrfOptions eps;  // test_chrf: beta 3, eps smoothing
    eps.beta = 3;
    eps.eps_smoothing = true;
    ChrfOptions eff = eps;  // test_chrf_eff_order
    eff.eps_smoothing = false;
    const Chrf e(eps), f(eff);
    CHECK(corpus(e, {"abcdefg"}, {{"hijklmnop"}}) == doctest::Approx(0.0).epsilon(1e-6));
    CHECK(corpus(e, {"aa"}, {{"ab"}}) == doctest::Approx(8.3333).epsilon(1e-5));
    CHECK(corpus(e, {"a", "b"}, {{"a", "c"}}) == doctest::Approx(8.3333).epsilon(1e-5));
    CHECK(corpus(e, {"a b c"}, {{"abc"}}) == doctest::Approx(50.0).epsilon(1e-6));
    CHECK(corpus(e, {" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."},
                 {{"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."}}) ==
          doctest::Approx(63.361730).epsilon(1e-6));
    CHECK(corpus(e, {" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
                 {{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}}) ==
          doctest::Approx(64.1302698).epsilon(1e-6));
    CHECK(corpus(f, {"a b c"}, {{"abc"}}) == doctest::Approx(100.0));
    CHECK(corpus(f, {"a", "b"}, {{"a", "c"}}) == doctest::Approx(50.0));
    CHECK(corpus(f, {"aa"}, {{"ab"}}) == doctest::Approx(25.0));
    CHECK(corpus(f, {""}, {{"reference"}}) == 0.0);
    ChrfOptions ws = eps;  // test_chrf_keep_whitespace
    ws.eps_smoothing = false;
    ws.whitespace = true;
    CHECK(corpus(Chrf(ws), {"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
                 {{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}}) ==
          doctest::Approx(67.3481606).epsilon(1e-6));
    ChrfOptions pp;
    pp.word_order = 2;
    CHECK(Chrf(pp).name() == "chrF2++");
}

TEST_CASE("ter: sacreBLEU's test_ter.py vectors") {
    CHECK(corpus(Ter(), {"aaaa bbbb cccc dddd"}, {{"aaaa bbbb cccc dddd"}}) == doctest::Approx(0.0));
    CHECK(corpus(Ter(), {"dddd eeee ffff"}, {{"aaaa bbbb cccc"}}) == doctest::Approx(100.0));
    CHECK(corpus(Ter(), {""}, {{"a"}}) == doctest::Approx(100.0));
    CHECK(corpus(Ter(), {"a"}, {{""}}) == doctest::Approx(100.0));
    CHECK(corpus(Ter(), {""}, {{""}}) == doctest::Approx(0.0));
    CHECK(corpus(Ter(), {"d e f g h a b c"}, {{"a b c d e f g h"}}) == doctest::Approx(100.0 / 8));
    // Several references: the fewest edits, over the references' average length (1 / 2.5);
    // the words of every reference stay valid while the others are read (found by fuzzing).
    CHECK(corpus(Ter(), {"a b c"}, {{"a b"}, {"b c d"}}) == doctest::Approx(40.0));
    // TERCOM lower-cases unless asked not to.
    CHECK(corpus(Ter(), {"The Cat"}, {{"the cat"}}) == doctest::Approx(0.0));
    TerOptions cs;
    cs.case_sensitive = true;
    CHECK(corpus(Ter(cs), {"The Cat"}, {{"the cat"}}) == doctest::Approx(100.0));
}

TEST_CASE("numpy_random: default_rng's raw draws, integers and bools as numpy 1.24 gives them") {
    // np.random.PCG64(12345).random_raw(3)
    NumpyRandom r(12345);
    CHECK(r.next64() == 4193609425186963869ULL);
    CHECK(r.next64() == 5843160025838961886ULL);
    CHECK(r.next64() == 14708796524633321433ULL);
    // np.random.default_rng(12345).choice(1000, size=(2, 5))
    NumpyRandom c(12345);
    std::vector<std::uint64_t> got;
    for (int i = 0; i < 10; ++i) got.push_back(c.below(1000));
    CHECK(got == std::vector<std::uint64_t>{699, 227, 788, 316, 204, 797, 642, 676, 988, 391});
}

TEST_CASE("report: numbers as Python's repr writes them") {
    CHECK(python_float(0.0) == "0.0");
    CHECK(python_float(100.0) == "100.0");
    CHECK(python_float(42.3) == "42.3");
    CHECK(python_float(9.999000099990002e-05) == "9.999000099990002e-05");
    CHECK(python_float(0.000999000999000999) == "0.000999000999000999");
    CHECK(python_float(75.06238537503395) == "75.06238537503395");
    CHECK(python_float(1e16) == "1e+16");
    CHECK(python_float(123456789012345.6) == "123456789012345.6");
}
