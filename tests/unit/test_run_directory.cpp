// The training run's directory (train/run_directory.hpp) and the choices tfm-train makes
// through libtfm: batch parts, dropout rates, the progress line. tests/cli/train.sh and
// tests/cli/mpi_train.sh run the whole tool.
#include <sys/stat.h>

#include "helpers.hpp"
#include "tfm/base/compute_type.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/train/progress_line.hpp"
#include "tfm/train/run_directory.hpp"

using namespace tfm;
using tfm_test::error_of;

namespace {

bool exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// Rank 0 of two ranks whose other rank answers every max() with something else: a rank that
// holds another model.
struct OtherRankDiffers : Collective {
    std::size_t size() const override { return 2; }
    std::int64_t max(std::int64_t value) override { return value == 0 ? 0 : value + 1; }
};

// Rank 0 of two ranks whose other rank's CPU lacks what this one's has (max() answers 1).
struct OtherRankLacks : Collective {
    std::size_t size() const override { return 2; }
    std::int64_t max(std::int64_t value) override { return std::max<std::int64_t>(value, 1); }
};

ModelConfig small_config() { return tfm_test::small_config(20, 8, 2, 8, 1); }

}  // namespace

TEST_CASE("run directory: a new model is staged, refused work leaves nothing, commit moves it in and locks it") {
    tfm_test::TempDir tmp;
    const std::string out = tmp.path + "/model";
    Collective alone;
    Model m = random_model(small_config(), 1);
    {  // a refusal after create (the data did not check out): nothing at -o
        RunDirectory dir(out, false, alone);
        dir.create([&](const std::string& path) { save_model(path, m); });
        CHECK(dir.model_path() != out);
        CHECK(exists(dir.model_path() + "/config.json"));
        CHECK_FALSE(exists(out));
    }
    CHECK_FALSE(exists(out));
    CHECK(error_of([&] { RunDirectory(out, true, alone); }).find("nothing to resume") != std::string::npos);
    {
        RunDirectory dir(out, false, alone);
        dir.create([&](const std::string& path) { save_model(path, m); });
        ModelConfig c = m.config;
        c.dropout = 0.25f;
        dir.write_config(c);
        CHECK_FALSE(dir.checkpoint());
        dir.commit(m, TrainState{});
        CHECK(dir.model_path() == out);
        CHECK(load_config(out + "/config.json").dropout == 0.25f);
        // Locked while the run lives: a second run is refused, naming the holder.
        CHECK(error_of([&] { RunDirectory(out, true, alone); }).find("is in use") != std::string::npos);
    }
    CHECK(error_of([&] { RunDirectory(out, false, alone); }).find("already holds a model") != std::string::npos);
    RunDirectory resumed(out, true, alone);
    CHECK(resumed.model_path() == out);
    CHECK_FALSE(resumed.checkpoint());  // no checkpoint saved yet
    resumed.write_config(small_config());  // a resumed run's config is the checkpoints' business
    CHECK(load_config(out + "/config.json").dropout == 0.25f);
}

TEST_CASE("run directory: ranks that hold different models, or the same model at another step, are refused") {
    Model m = random_model(small_config(), 1);
    TrainState st;
    const std::int64_t h = training_fingerprint(m, st);
    CHECK(h >= 0);
    CHECK(training_fingerprint(m, st) == h);
    st.step = 1;
    CHECK(training_fingerprint(m, st) != h);
    st.step = 0;
    m.encoder[0].final_ln.gamma(0) += 1e-6f;
    CHECK(training_fingerprint(m, st) != h);

    tfm_test::TempDir tmp;
    OtherRankDiffers ranks;
    RunDirectory dir(tmp.path + "/model", false, ranks);
    dir.create([&](const std::string& path) { save_model(path, m); });
    CHECK(error_of([&] { dir.commit(m, st); }).find("do not all see the same model") != std::string::npos);
}

TEST_CASE("batch parts: as asked, as the run had them, or 4 and a multiple of the ranks") {
    std::vector<std::string> notes;
    auto note = [&](const std::string& s) { notes.push_back(s); };
    CHECK(choose_batch_parts(6, std::nullopt, 1, note) == 6);
    CHECK(choose_batch_parts(6, 4, 3, note) == 6);
    CHECK(error_of([&] { choose_batch_parts(6, std::nullopt, 4, note); }).find("multiple of the ranks") !=
          std::string::npos);
    CHECK(choose_batch_parts(0, std::nullopt, 1, note) == 4);
    CHECK(choose_batch_parts(0, std::nullopt, 2, note) == 4);
    CHECK(choose_batch_parts(0, std::nullopt, 3, note) == 12);
    CHECK(choose_batch_parts(0, 0, 1, note) == 1);  // a checkpoint that does not say: one part
    CHECK(choose_batch_parts(0, 2, 2, note) == 2);
    CHECK(notes.empty());
    CHECK(choose_batch_parts(0, 2, 3, note) == 6);  // 3 ranks cannot share 2 parts
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("cutting them into 6") != std::string::npos);
}

TEST_CASE("training compute type: float32, bfloat16 where the CPU has the units, auto agreed by the ranks") {
    std::vector<std::string> notes;
    auto note = [&](const std::string& s) { notes.push_back(s); };
    Collective alone;
    CHECK(choose_training_compute("float32", alone, note) == ComputeType::Float32);
    const bool units = compute_type_supported(ComputeType::BFloat16);
    CHECK(choose_training_compute("auto", alone, note) == (units ? ComputeType::BFloat16 : ComputeType::Float32));
    if (units) {
        CHECK(notes.empty());
        CHECK(choose_training_compute("bfloat16", alone, note) == ComputeType::BFloat16);
    } else {
        REQUIRE(notes.size() == 1);
        CHECK(notes[0].find("this CPU") != std::string::npos);
        CHECK(notes[0].find("training in float32") != std::string::npos);
        CHECK(error_of([&] { choose_training_compute("bfloat16", alone, note); }).find("needs AVX512-BF16 or AMX") !=
              std::string::npos);
    }
    notes.clear();
    OtherRankLacks two;  // one rank without the units: all in float32, so that the ranks compute alike
    CHECK(choose_training_compute("auto", two, note) == ComputeType::Float32);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find(units ? "another rank's CPU" : "this CPU") != std::string::npos);
    CHECK(error_of([&] { choose_training_compute("int8", alone, note); }).find("float32, bfloat16 or auto") !=
          std::string::npos);
}

TEST_CASE("dropout: rates not given are the config's, and the config records the run's") {
    ModelConfig c;
    c.dropout = 0.1f;
    c.attention_dropout = 0.05f;
    c.activation_dropout = 0.0f;
    TrainOptions o;
    o.dropout = -1.0f;
    o.attention_dropout = 0.2f;
    o.activation_dropout = -1.0f;
    settle_dropout(o, c);
    CHECK(o.dropout == 0.1f);
    CHECK(o.attention_dropout == 0.2f);
    CHECK(o.activation_dropout == 0.0f);
    CHECK(c.attention_dropout == 0.2f);
    CHECK(c.dropout == 0.1f);
}

TEST_CASE("progress line: step, epoch, loss per token, rate, tokens/s and the time left") {
    ProgressLine line(100);  // resumed at step 100
    StepReport r;
    r.step = 101;
    r.epoch = 2;
    r.loss.smoothed = 500.0;
    r.loss.tokens = 200;
    r.learning_rate = 1.5e-4;
    r.seconds = 0.5;
    CHECK(line.update(r, 1300) == "step 101/1300 epoch 2 loss 2.500 lr 1.50e-04 400 tokens/s ETA 10 min");
    r.step = 102;
    r.seconds = 1.0;  // a mean of 0.75 s over the two updates this run took
    CHECK(line.update(r, 1300) == "step 102/1300 epoch 2 loss 2.500 lr 1.50e-04 200 tokens/s ETA 15 min");
}
