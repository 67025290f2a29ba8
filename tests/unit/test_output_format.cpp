// The layouts the translating tools print (decode/output_format.hpp), byte for byte, and a
// model's generation settings laid over the options (decode/generation_settings.hpp).
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfm/decode/generation_settings.hpp"
#include "tfm/decode/output_format.hpp"
#include "tfm/model/model_dir.hpp"

using namespace tfm;

namespace {

const ModelDir& shipped() {
    static const ModelDir md = load_model_dir(std::string(TFM_SOURCE) + "/share/models/multi30k-de-en");
    return md;
}

// "A dog runs." as the search would return it: ids without eos, one log-probability per token
// and eos's last, attention rows over a 4-token source (its eos last).
Hypothesis dog(double score, double logprob) {
    Hypothesis h;
    h.ids = shipped().tokenizer.encode_target("A dog runs.");
    h.ids.pop_back();
    h.token_logprobs.assign(h.ids.size() + 1, -0.25f);
    h.logprob = logprob;
    h.score = score;
    h.finished = true;
    for (std::size_t t = 0; t <= h.ids.size(); ++t) {  // token t attends most to source t % 3
        std::vector<float> row(4, 0.1f);
        row[t % 3] = 0.7f;
        h.attention.push_back(row);
    }
    return h;
}

}  // namespace

TEST_CASE("output: text, scores, ids, Moses n-best and alignments, byte for byte") {
    const Tokenizer& tok = shipped().tokenizer;
    const Hypothesis best = dog(-1.5, -2), second = dog(-1.75, -2.5);
    const std::size_t n = best.ids.size();
    OutputFormat f;
    CHECK(format_hypotheses(0, {best}, tok, f) == "A dog runs.\n");
    f.scores = true;
    CHECK(format_hypotheses(0, {best}, tok, f) == "-1.500000\tA dog runs.\n");
    f.scores = false;
    f.ids = true;
    std::string ids;
    for (std::size_t i = 0; i < n; ++i) ids += (i ? " " : "") + std::to_string(best.ids[i]);
    CHECK(format_hypotheses(0, {best}, tok, f) == ids + "\n");
    f.ids = false;
    f.n_best = 2;
    const std::string penalty = " WordPenalty= -" + std::to_string(n) + " ||| ";
    CHECK(format_hypotheses(7, {best, second}, tok, f) ==
          "7 ||| A dog runs. ||| F0= -2.000000" + penalty + "-1.500000\n"
          "7 ||| A dog runs. ||| F0= -2.500000" + penalty + "-1.750000\n");
    f.n_best = 1;
    f.alignment = "hard";
    std::string pairs;
    for (std::size_t t = 0; t < n; ++t) pairs += (t ? " " : "") + std::to_string(t % 3) + "-" + std::to_string(t);
    CHECK(format_hypotheses(0, {best}, tok, f) == "A dog runs. ||| " + pairs + "\n");
    CHECK(alignment_text(best.attention, n, "soft").substr(0, 16) == "0.7,0.1,0.1,0.1 ");
    Hypothesis empty;
    f.alignment = "";
    f.n_best = 2;
    CHECK(format_hypotheses(0, {empty, empty}, tok, f) ==
          "0 |||  ||| F0= 0.000000 WordPenalty= 0 ||| 0.000000\n0 |||  ||| F0= 0.000000 WordPenalty= 0 ||| 0.000000\n");
}

TEST_CASE("output: jsonl holds every field, the n-best list and the alignment") {
    const Tokenizer& tok = shipped().tokenizer;
    OutputFormat f;
    f.jsonl = true;
    f.n_best = 2;
    f.alignment = "hard";
    const std::string line = format_hypotheses(4, {dog(-1.5, -2), dog(-1.75, -2.5)}, tok, f);
    REQUIRE(line.back() == '\n');
    CHECK(line.find('\n') == line.size() - 1);  // one line per input
    const auto j = nlohmann::json::parse(line);
    CHECK(j["line"] == 5);
    CHECK(j["translation"] == "A dog runs.");
    CHECK(j["score"] == -1.5);
    CHECK(j["logprob"] == -2);
    CHECK(j["finished"] == true);
    CHECK(j["ids"].size() == j["tokens"].size());
    CHECK(j["token_logprobs"].size() == j["ids"].size() + 1);
    CHECK(j["n_best"].size() == 2);
    CHECK(j["n_best"][1]["score"] == -1.75);
    CHECK(j["alignment"][1] == nlohmann::json::array({1, 1}));
}

TEST_CASE("output: tfm-score's line") {
    TargetScore s;
    s.token_logprobs = {-1.0f, -0.5f, -1.5f};
    s.logprob = -3;
    s.attention = {{0.9f, 0.1f}, {0.2f, 0.8f}, {0.5f, 0.5f}};
    CHECK(format_score(s, false, false, "") == "-3.000000\n");
    CHECK(format_score(s, true, false, "") == "-1.000000\n");
    CHECK(format_score(s, false, true, "") == "-3.000000\t-1.0000 -0.5000 -1.5000\n");
    CHECK(format_score(s, false, false, "hard") == "-3.000000 ||| 0-0 0-1\n");  // the source's eos left out
}

TEST_CASE("generation settings: the model's over the defaults, the user's over the model's") {
    GenerationConfig g;
    g.source = "generation_config.json";
    g.num_beams = 6;
    g.length_penalty = 0.8;
    g.max_length = 10;
    g.min_length = 3;
    g.forced_eos_token_id = 0;
    DecodeOptions o;
    apply_generation(o, g, {});
    CHECK(o.search.beam == 6);
    CHECK(o.search.penalty == LengthPenalty::Power);
    CHECK(o.search.alpha == 0.8);
    CHECK(o.max_len == 9);           // max_length counts the decoder's start token
    CHECK(o.search.min_len == 2);
    CHECK(o.search.eos_forced_at == 9);
    DecodeOptions mine;
    mine.search.beam = 2;
    mine.search.alpha = 0.6;
    mine.max_len = 20;
    apply_generation(mine, g, {true, true, true, false});
    CHECK(mine.search.beam == 2);
    CHECK(mine.search.alpha == 0.6);
    CHECK(mine.search.penalty != LengthPenalty::Power);
    CHECK(mine.max_len == 20);
    DecodeOptions none;
    apply_generation(none, GenerationConfig{}, {});  // a model that states nothing changes nothing
    CHECK(none.search.beam == DecodeOptions{}.search.beam);
}
