// BLEU as sacreBLEU computes it: the 13a rules, clipped n-gram counts, brevity penalty and
// "exp" smoothing, on cases worked by hand.
#include <cmath>
#include <tuple>

#include "helpers.hpp"
#include "tfm/decode/bleu.hpp"

using namespace tfm;

TEST_CASE("bleu: 13a tokenisation") {
    CHECK(tokenize_13a("Hello, world. It's 3.5-4 km!") == "Hello , world . It's 3.5 - 4 km !");
    CHECK(tokenize_13a("a (b) \"c\" d/e $5 1,000 x.") == "a ( b ) \" c \" d / e $ 5 1,000 x .");
    CHECK(tokenize_13a("&quot;A&amp;B&quot; &lt;x&gt;") == "\" A & B \" < x >");
    CHECK(tokenize_13a("Grüße, Straße.") == "Grüße , Straße .");
    CHECK(tokenize_13a("  many   spaces  ") == "many spaces");
}

TEST_CASE("bleu: words split where Python's str.split() splits, as sacreBLEU's do (issue 50)") {
    // Every character str.isspace() holds separates words; other spaces (U+200B) do not.
    const std::string spaces[] = {"\t", "\n", "\v", "\f", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\u0085", "\u00a0",
                                  "\u1680", "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"};
    for (const std::string& sp : spaces) {
        CAPTURE(sp);
        CHECK(split_words("a" + sp + "b" + sp + sp + "c" + sp) == std::vector<std::string_view>{"a", "b", "c"});
    }
    CHECK(split_words("a\u200bb") == std::vector<std::string_view>{"a\u200bb"});  // ZERO WIDTH SPACE is not a space
    CHECK(split_words("a\xe2\x80") == std::vector<std::string_view>{"a\xe2\x80"});  // a cut U+2000 is no space
    CHECK(split_words("").empty());
    // The case: no-break spaces between the words score as spaces do.
    CHECK(corpus_bleu({"The\u00a0cat\u00a0sat on the mat."}, {"The cat sat on the mat."}).score == doctest::Approx(100.0));
}

TEST_CASE("bleu: no n-gram in common scores 0, as sacreBLEU's degenerate cases (test/test_bleu.py)") {
    // sacreBLEU's issue #141: 'this is a cat' against 'okay thanks' is 0.00, not a smoothed 7.99.
    const Bleu none = corpus_bleu({"this is a cat"}, {"okay thanks"});
    CHECK(none.score == 0.0);
    CHECK(none.precisions == std::array<double, 4>{});
    CHECK(none.format() == "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 2.000 hyp_len = 4 ref_len = 2)");
    // test_corpus_bleu_cases: empty hypotheses are scored (not dropped), 0.0.
    CHECK(corpus_bleu({"", "", ""}, {"The dog bit the man.", "It was not unexpected.", "The man bit him first."}).score == 0.0);
    // test_case_degenerate_stats (the rows whose counts are all 0): 0 whatever the lengths.
    for (const auto& [total, hyp, ref] : {std::tuple<std::array<std::size_t, 4>, std::size_t, std::size_t>{{4, 4, 2, 1}, 0, 1},
                                          {{10, 11, 12, 0}, 14, 10},
                                          {{0, 0, 0, 0}, 0, 0},
                                          {{0, 0, 0, 0}, 1, 5}}) {
        BleuStats s;
        s.total = total;
        s.hyp_len = hyp;
        s.ref_len = ref;
        CHECK(corpus_bleu(s).score == 0.0);
    }
    // test_case_scoring: counts [9,7,5,3] of [10,8,6,4], lengths 11 and 11: 0.8375922397.
    BleuStats s;
    s.correct = {9, 7, 5, 3};
    s.total = {10, 8, 6, 4};
    s.hyp_len = s.ref_len = 11;
    CHECK(corpus_bleu(s).score == doctest::Approx(83.75922397).epsilon(1e-9));
    // test_case_statistics: 'am I am a character sequence' against 'I am a symbol string
    // sequence a a': matches [4,2,1,0] of [6,5,4,3].
    BleuStats st;
    st.add("am I am a character sequence", "I am a symbol string sequence a a");
    CHECK(st.correct == std::array<std::size_t, 4>{4, 2, 1, 0});
    CHECK(st.total == std::array<std::size_t, 4>{6, 5, 4, 3});
}

TEST_CASE("bleu: perfect, empty and partial hypotheses") {
    CHECK(corpus_bleu({"The cat sat on the mat."}, {"The cat sat on the mat."}).score == doctest::Approx(100.0));
    CHECK(corpus_bleu({""}, {"The cat sat."}).score == 0.0);
    // "the the the the the the the" vs "the cat is on the mat": unigrams 2/7 (clipped), no
    // higher n-gram matches: smoothed 100/(2*6), 100/(4*5), 100/(8*4); 7 >= 6 words: BP 1.
    Bleu b = corpus_bleu({"the the the the the the the"}, {"the cat is on the mat"});
    const double expected = std::exp((std::log(200.0 / 7) + std::log(100.0 / 12) + std::log(100.0 / 20) + std::log(100.0 / 32)) / 4);
    CHECK(b.score == doctest::Approx(expected).epsilon(1e-9));
    CHECK(b.precisions[0] == doctest::Approx(200.0 / 7));
    CHECK(b.brevity_penalty == 1.0);
    // A short hypothesis: every n-gram matches, BP = exp(1 - 6/4).
    Bleu s = corpus_bleu({"the cat is on"}, {"the cat is on the mat"});
    CHECK(s.brevity_penalty == doctest::Approx(std::exp(1.0 - 6.0 / 4.0)));
    CHECK(s.score == doctest::Approx(100.0 * std::exp(1.0 - 6.0 / 4.0)));
    CHECK(s.format().find("BLEU = 60.65 100.0/100.0/100.0/100.0 (BP = 0.607 ratio = 0.667 hyp_len = 4 ref_len = 6)") == 0);
    // Corpus level: counts are summed before the precisions.
    Bleu c = corpus_bleu({"a b c d", "e f"}, {"a b c d", "e g"});
    CHECK(c.precisions[0] == doctest::Approx(500.0 / 6));
    CHECK(c.precisions[1] == doctest::Approx(300.0 / 4));
    CHECK(tfm_test::error_of([] { corpus_bleu({"a"}, {}); }).find("1 hypotheses for 0 references") == 0);
}
