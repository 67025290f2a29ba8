// BLEU as sacreBLEU computes it: the 13a rules, clipped n-gram counts, brevity penalty and
// "exp" smoothing, on cases worked by hand.
#include <cmath>

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
