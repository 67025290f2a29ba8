// pytorch_model.bin without Python: the restricted unpickler on hand-made pickles (what it
// refuses and why), and torch.save's own files (tests/golden/make_torch_golden.py) in the zip
// and legacy formats, against the values PyTorch wrote beside them.
#include <cstring>
#include <fstream>
#include <sstream>

#include "helpers.hpp"
#include "tfm/io/pickle.hpp"
#include "tfm/io/safetensors.hpp"
#include "tfm/io/torch_checkpoint.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/model.hpp"
#include "../helpers/craft_checkpoint.hpp"

#include <limits>

using namespace tfm;
using tfm_test::golden;
using tfm_test::error_of;

namespace {


std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

pickle::Document unpickle_text(const std::string& bytes, const pickle::Hooks& hooks = {}) {
    pickle::Document doc;
    std::size_t used = 0;
    pickle::unpickle(doc, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), &used, hooks, "test");
    CHECK(used == bytes.size());
    return doc;
}

}  // namespace

TEST_CASE("pickle: the subset torch.save writes, and nothing else") {
    // pickle.dumps({'a': [1, -2, 300, 3.5, True, None], 'b': ('x',)}, protocol=2) of Python 3
    const std::string dict(
        "\x80\x02\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71\x02\x28\x4b\x01\x4a\xfe\xff\xff"
        "\xff\x4d\x2c\x01\x47\x40\x0c\x00\x00\x00\x00\x00\x00\x88\x4e\x65\x58\x01\x00\x00\x00\x62\x71\x03"
        "\x58\x01\x00\x00\x00\x78\x71\x04\x85\x71\x05\x75\x2e",
        61);
    pickle::Document doc = unpickle_text(dict);
    const pickle::Value* a = pickle::dict_get(*doc.root, "a");
    REQUIRE(a);
    REQUIRE(a->items.size() == 6);
    CHECK(a->items[0]->integer == 1);
    CHECK(a->items[1]->integer == -2);
    CHECK(a->items[2]->integer == 300);
    CHECK(a->items[3]->real == 3.5);
    CHECK(a->items[4]->boolean);
    CHECK(a->items[5]->is(pickle::Value::Kind::None));
    const pickle::Value* b = pickle::dict_get(*doc.root, "b");
    REQUIRE(b);
    CHECK(b->is(pickle::Value::Kind::Tuple));
    CHECK(b->items.at(0)->text == "x");

    // A global that a state dict never calls is refused by name, not run.
    const std::string evil = std::string("\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00ls\x85R.", 23);
    pickle::Hooks hooks;
    hooks.call = [](pickle::Document&, const pickle::Value& f, const pickle::Value&) -> pickle::ValuePtr {
        throw Error("refused " + f.text);
    };
    CHECK(error_of([&] { unpickle_text(evil, hooks); }).find("refused os.system") != std::string::npos);
    CHECK(error_of([&] { unpickle_text(evil); }).find("os.system") != std::string::npos);
    // Truncation, unknown opcodes, a stack that underflows, memo misses, runaway nesting.
    CHECK(error_of([&] { unpickle_text(dict.substr(0, 30)); }).find("truncated") != std::string::npos);
    CHECK(error_of([&] { unpickle_text("\x80\x02I42\n."); }).find("opcode 0x49") != std::string::npos);
    CHECK(error_of([&] { unpickle_text("\x80\x02t."); }).find("no MARK") != std::string::npos);
    CHECK(error_of([&] { unpickle_text("\x80\x02h\x05."); }).find("memo entry 5") != std::string::npos);
    CHECK(error_of([&] { unpickle_text("\x80\x02" + std::string(20000, '(') + "."); }).find("deep") != std::string::npos);
    // A list that holds itself is harmless (values belong to the document).
    pickle::Document cyc = unpickle_text(std::string("\x80\x02]q\x00h\x00" "a.", 9));
    CHECK(cyc.root->items.at(0) == cyc.root);
}

TEST_CASE("torch checkpoint: zip and legacy files of torch.save, every dtype and view") {
    const auto expected = tfm_test::read_file(golden("torch_tensors_expected.npy"));
    for (const char* fmt : {"zip", "legacy"}) {
        CAPTURE(fmt);
        TorchCheckpoint ck = TorchCheckpoint::open(golden(std::string("torch_tensors_") + fmt + ".bin"));
        CHECK(ck.legacy() == (std::string(fmt) == "legacy"));
        std::vector<std::string> floats;
        for (const std::string& n : ck.names())
            if (n != "h.position_ids") floats.push_back(n);
        REQUIRE(floats.size() == expected.size());
        for (std::size_t i = 0; i < floats.size(); ++i) {
            CAPTURE(floats[i]);
            const FloatArray got = ck.get(floats[i]);
            const FloatArray want = as_float(expected[i]);
            REQUIRE(got.size() == want.size());
            CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
        }
        CHECK(ck.shape("e.transposed") == Shape{4, 6});
        CHECK(ck.shape("g.scalar") == Shape{});
        CHECK(ck.dtype("b.f16") == "F16");
        CHECK(ck.shape("h.position_ids") == Shape{1, 5});
        CHECK(error_of([&] { ck.get("h.position_ids"); }).find("dtype I64") != std::string::npos);
        CHECK(error_of([&] { ck.get("nope"); }).find("missing tensor 'nope'") != std::string::npos);
        CHECK(error_of([&] { ck.get("a.f32", {5, 3}); }).find("expected [5,3]") != std::string::npos);
    }
}

TEST_CASE("torch checkpoint: damaged files are refused with the file named") {
    const std::string zip = slurp(golden("torch_tensors_zip.bin"));
    const std::string legacy = slurp(golden("torch_tensors_legacy.bin"));
    for (std::size_t cut : {std::size_t(0), std::size_t(3), zip.size() / 2, zip.size() - 1}) {
        CAPTURE(cut);
        CHECK(error_of([&] { TorchCheckpoint::from_bytes(zip.substr(0, cut), "m.bin"); }).rfind("m.bin", 0) == 0);
    }
    for (std::size_t cut : {std::size_t(5), legacy.size() / 2, legacy.size() - 1}) {
        CAPTURE(cut);
        CHECK(error_of([&] { TorchCheckpoint::from_bytes(legacy.substr(0, cut), "m.bin"); }).rfind("m.bin", 0) == 0);
    }
    // One flipped byte inside a stored tensor's data (zip entries of torch.save are stored,
    // not compressed, 64-byte aligned): the zip's CRC catches it.
    std::string bad = zip;
    std::size_t start = 0;
    for (std::size_t h = bad.find("PK\x03\x04"); h != std::string::npos && !start; h = bad.find("PK\x03\x04", h + 1)) {
        const auto u16 = [&](std::size_t at) { return std::size_t(std::uint8_t(bad[at])) | std::size_t(std::uint8_t(bad[at + 1])) << 8; };
        const std::size_t name_len = u16(h + 26), extra_len = u16(h + 28);
        const std::string name = bad.substr(h + 30, name_len);
        if (name.size() > 7 && name.compare(name.size() - 7, 7, "/data/0") == 0) start = h + 30 + name_len + extra_len;
    }
    REQUIRE(start > 0);
    REQUIRE(start + 8 < bad.size());
    bad[start + 4] = char(bad[start + 4] ^ 0x55);
    CHECK(error_of([&] { TorchCheckpoint::from_bytes(bad, "m.bin"); }).rfind("m.bin", 0) == 0);
    CHECK(error_of([&] { TorchCheckpoint::from_bytes(bad, "m.bin"); }).find("CRC") != std::string::npos);
    CHECK(error_of([&] { TorchCheckpoint::from_bytes("hello", "m.bin"); }).find("not a PyTorch checkpoint") !=
          std::string::npos);
}

TEST_CASE("torch checkpoint: an HF Marian pytorch_model.bin loads as the model its safetensors holds") {
    const ModelConfig c = load_config(golden("model_post_relu_interleaved/config.json"));
    const Model want = load_model_weights(c, SafeTensors::open(golden("model_post_relu_interleaved/model.safetensors")));
    for (const char* fmt : {"zip", "legacy", "f16"}) {
        CAPTURE(fmt);
        const std::string dir = golden(std::string("model_torch_") + fmt);
        Model got = load_model_weights(load_config(dir + "/config.json"), TorchCheckpoint::open(dir + "/pytorch_model.bin"));
        Model w = want;
        std::vector<std::pair<std::string, std::vector<float>>> a, b;
        visit_parameters(w, [&](const std::string& n, float* p, std::size_t k) { a.push_back({n, {p, p + k}}); });
        visit_parameters(got, [&](const std::string& n, float* p, std::size_t k) { b.push_back({n, {p, p + k}}); });
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            CAPTURE(a[i].first);
            REQUIRE(a[i].first == b[i].first);
            REQUIRE(a[i].second.size() == b[i].second.size());
            for (std::size_t j = 0; j < a[i].second.size(); ++j) {
                const float x = a[i].second[j], y = b[i].second[j];
                if (std::string(fmt) == "f16") CHECK(std::fabs(x - y) <= 1e-3f * (1.0f + std::fabs(x)));
                else CHECK(x == y);
            }
        }
    }
}

namespace {

// One F32 tensor over one storage of `numel` values 0, 1, 2 ...
tfm_craft::Checkpoint one_tensor(bool legacy, std::int64_t numel, std::int64_t offset, std::vector<std::int64_t> shape,
                                 std::vector<std::int64_t> stride) {
    tfm_craft::Checkpoint ck;
    ck.legacy = legacy;
    std::vector<float> values(static_cast<std::size_t>(numel));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i);
    ck.storages.push_back({"0", "FloatStorage", numel, tfm_craft::float_bytes(values)});
    tfm_craft::Tensor t;
    t.offset = offset;
    t.shape = std::move(shape);
    t.stride = std::move(stride);
    ck.tensors.push_back(t);
    return ck;
}

std::string open_error(const tfm_craft::Checkpoint& ck) {
    return error_of([&] {
        TorchCheckpoint c = TorchCheckpoint::from_bytes(tfm_craft::torch_bytes(ck), "m.bin");
        for (const std::string& n : c.names()) (void)c.get(n);
    });
}

}  // namespace

TEST_CASE("torch checkpoint: crafted views whose arithmetic wraps are refused (issue 49)") {
    // The generator itself: an in-bounds strided view reads as torch would, in both formats.
    for (bool legacy : {false, true}) {
        CAPTURE(legacy);
        TorchCheckpoint ok = TorchCheckpoint::from_bytes(tfm_craft::torch_bytes(one_tensor(legacy, 12, 1, {2, 3}, {1, 4})), "m.bin");
        const FloatArray w = ok.get("w");  // element [i,j] = 1 + i + 4j
        REQUIRE(w.shape() == std::vector<std::size_t>{2, 3});
        CHECK(std::vector<float>(w.begin(), w.end()) == std::vector<float>{1, 5, 9, 2, 6, 10});
    }
    // 1. Storage offset 2^61, stride 2^63 - 2^60: offset + 2*stride wraps past 2^64 to 0, inside
    //    the 16-value storage (the reader once formed a wild pointer: SIGSEGV).
    CHECK(open_error(one_tensor(false, 16, std::int64_t(1) << 61, {3}, {std::int64_t(0x7000000000000000)}))
              .find("reaches past its storage") != std::string::npos);
    // An offset already past the storage, with a shape of ones (no stride arithmetic at all).
    CHECK(open_error(one_tensor(false, 16, 17, {1, 1}, {1, 1})).find("reaches past its storage") != std::string::npos);
    CHECK(open_error(one_tensor(false, 16, 16, {1}, {1})).find("reaches past its storage") != std::string::npos);
    // An empty view may sit at the storage's end, not past it.
    CHECK_NOTHROW(TorchCheckpoint::from_bytes(tfm_craft::torch_bytes(one_tensor(false, 16, 16, {0, 4}, {4, 1})), "m.bin"));
    CHECK(open_error(one_tensor(false, 16, std::int64_t(1) << 62, {0}, {1})).find("reaches past") != std::string::npos);
    // Sizes whose product overflows 2^64, strides of zero (broadcast) and negative values.
    CHECK(open_error(one_tensor(false, 16, 0, {std::int64_t(1) << 32, std::int64_t(1) << 32, 16}, {0, 0, 1}))
              .find("more elements than its storage") != std::string::npos);
    CHECK(open_error(one_tensor(false, 16, -1, {4}, {1})).find("not a non-negative integer") != std::string::npos);
    // An empty tensor whose other dimensions overflow (found by the structure-aware fuzzer:
    // xtensor's strides of such a shape overflow).
    CHECK(open_error(one_tensor(false, 16, 0, {0, std::int64_t(1) << 32, std::int64_t(1) << 62}, {1, 1, 1}))
              .find("has more than 1099511627776 elements") != std::string::npos);
    CHECK(open_error(one_tensor(false, 16, 0, {4}, {-1})).find("not a non-negative integer") != std::string::npos);

    // 2. Legacy format: a view whose offset plus the tensor's storage offset wraps to 2^64 - 4096
    //    (the reader once read 4096 floats before the storage and exited 0).
    tfm_craft::Checkpoint wrap = one_tensor(true, 1024, std::numeric_limits<std::int64_t>::max() - 4094, {5000}, {1});
    wrap.tensors[0].has_view = true;
    wrap.tensors[0].view = {"1", std::numeric_limits<std::int64_t>::max(), 8};
    CHECK(open_error(wrap).find("storage view '1'") != std::string::npos);
    // A view in bounds, the tensor past the view's end (though inside the root storage).
    tfm_craft::Checkpoint past = one_tensor(true, 1024, 4, {8}, {1});
    past.tensors[0].has_view = true;
    past.tensors[0].view = {"1", 8, 8};
    CHECK(open_error(past).find("past its storage view") != std::string::npos);
    // A good view reads from its place in the root storage: root[8:16] as [2,4].
    tfm_craft::Checkpoint view = one_tensor(true, 1024, 0, {2, 4}, {4, 1});
    view.tensors[0].has_view = true;
    view.tensors[0].view = {"1", 8, 8};
    const FloatArray v = TorchCheckpoint::from_bytes(tfm_craft::torch_bytes(view), "m.bin").get("w");
    CHECK(std::vector<float>(v.begin(), v.end()) == std::vector<float>{8, 9, 10, 11, 12, 13, 14, 15});
    // The count written before a legacy storage's bytes must be the declared one.
    tfm_craft::Checkpoint miscount = one_tensor(true, 16, 0, {4}, {1});
    miscount.storages[0].stored_numel = 8;
    CHECK(open_error(miscount).find("of another size than declared") != std::string::npos);
}

TEST_CASE("torch checkpoint: deflated archives read, and expand only within a budget (issue 49)") {
    // A valid checkpoint zipped with deflate (64000 values in far fewer bytes) reads.
    tfm_craft::Checkpoint ck = one_tensor(false, 64000, 0, {250, 256}, {256, 1});
    ck.deflate = true;
    const std::string bytes = tfm_craft::torch_bytes(ck);
    REQUIRE(bytes.size() < 64000 * 4);
    const FloatArray w = TorchCheckpoint::from_bytes(bytes, "m.bin").get("w");
    CHECK(w(249, 255) == 63999.0f);
    // 96 MiB of zeros deflate to ~100 KB: past 16x the archive (and the 64 MiB floor).
    tfm_craft::Checkpoint bomb;
    bomb.deflate = true;
    bomb.storages.push_back({"0", "FloatStorage", 24 << 20, std::string(std::size_t(96) << 20, '\0')});
    tfm_craft::Tensor t;
    t.shape = {24 << 20};
    t.stride = {1};
    bomb.tensors.push_back(t);
    const std::string bomb_bytes = tfm_craft::torch_bytes(bomb);
    REQUIRE(bomb_bytes.size() < (std::size_t(1) << 20));
    const std::string e = error_of([&] { TorchCheckpoint::from_bytes(bomb_bytes, "m.bin"); });
    CHECK(e.rfind("m.bin: ", 0) == 0);
    CHECK(e.find("more than the archive may expand to") != std::string::npos);
    // TFM_ZIP_RATIO raises the budget; a value that is not a positive integer is a usage error.
    ::setenv("TFM_ZIP_RATIO", "100000", 1);
    CHECK(TorchCheckpoint::from_bytes(bomb_bytes, "m.bin").shape("w") == Shape{24 << 20});
    ::setenv("TFM_ZIP_RATIO", "-3", 1);
    CHECK(error_of([&] { TorchCheckpoint::from_bytes(bomb_bytes, "m.bin"); }).find("TFM_ZIP_RATIO") != std::string::npos);
    ::unsetenv("TFM_ZIP_RATIO");
}
