// bfloat16 mixed precision: gemm's products under ProductPrecision(bfloat16) are the float32
// products of the operands rounded to bfloat16 (oneDNN's on CPUs with bf16 units, checked
// against that); a training pass in it gives gradients close to float32's (and not equal to
// them: the products really are rounded), the same bits for any thread count; checkpoints
// resume across compute types.
#include <cmath>
#include <memory>

#include "helpers.hpp"
#include "tfm/base/bfloat16.hpp"
#include "tfm/base/gemm.hpp"
#include "tfm/base/onednn_gemm.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/optimizer.hpp"
#include "tfm/train/training.hpp"

using namespace tfm;
using tfm_test::error_of;
using tfm_test::random_vec;

namespace {

std::vector<float> gradients(Model& g) {
    std::vector<float> all;
    visit_parameters(g, [&](const std::string&, float* p, std::size_t n) { all.insert(all.end(), p, p + n); });
    return all;
}

// |a - b| / |b| (Euclidean norms).
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

}  // namespace

TEST_CASE("bfloat16: rounding to nearest, ties to even, NaN kept, the value exact") {
    CHECK(bfloat16_bits(1.0f) == 0x3f80);
    CHECK(round_to_bfloat16(1.0f + 1.0f / 256) == 1.0f);              // a tie: to even (down)
    CHECK(round_to_bfloat16(1.0f + 3.0f / 256) == 1.0f + 4.0f / 256);  // a tie: to even (up)
    CHECK(round_to_bfloat16(1.0f + 1.0f / 128 + 1.0f / 4096) == 1.0f + 1.0f / 128);
    CHECK(bfloat16_value(bfloat16_bits(-3.5f)) == -3.5f);
    CHECK(std::isnan(round_to_bfloat16(std::nanf(""))));
    CHECK(std::isinf(round_to_bfloat16(INFINITY)));
    CHECK(round_to_bfloat16(3.4028235e38f) == INFINITY);  // float32's largest rounds past bfloat16's
}

TEST_CASE("gemm in bfloat16: the float32 product of the rounded operands, views and transposes alike") {
    const std::size_t m = 37, n = 29, k = 45;
    const auto a = random_vec(m * (k + 3), 1), b = random_vec(n * k, 2);
    const ConstMat av{a.data(), m, k, k + 3};  // a view with a longer row stride
    std::vector<float> ar(m * k), br(n * k);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < k; ++j) ar[i * k + j] = round_to_bfloat16(a[i * (k + 3) + j]);
    for (std::size_t i = 0; i < n * k; ++i) br[i] = round_to_bfloat16(b[i]);
    std::vector<float> want(m * n, 0.5f), got(m * n, 0.5f), exact(m * n, 0.5f);
    gemm(mat(want.data(), m, n), mat(ar.data(), m, k), Op::N, mat(br.data(), n, k), Op::T, 0.75f, 0.25f);
    gemm(mat(exact.data(), m, n), av, Op::N, mat(b.data(), n, k), Op::T, 0.75f, 0.25f);
    {
        const ProductPrecision bf16(ComputeType::BFloat16);
        CHECK(ProductPrecision::current() == ComputeType::BFloat16);
        gemm(mat(got.data(), m, n), av, Op::N, mat(b.data(), n, k), Op::T, 0.75f, 0.25f);
        {
            const ProductPrecision inner(ComputeType::Float32);
            CHECK(ProductPrecision::current() == ComputeType::Float32);
        }
        CHECK(ProductPrecision::current() == ComputeType::BFloat16);
    }
    CHECK(ProductPrecision::current() == ComputeType::Float32);
    if (compute_type_supported(ComputeType::BFloat16)) {  // oneDNN's kernels: sums in another order
        double off = 0;
        for (std::size_t i = 0; i < m * n; ++i) off = std::max(off, double(std::fabs(got[i] - want[i])));
        CHECK(off < 2e-4);  // 45 float32 roundings of sums below 45
    } else {
        CHECK(got == want);
    }
    CHECK(got != exact);
    double worst = 0;
    for (std::size_t i = 0; i < m * n; ++i) worst = std::max(worst, double(std::fabs(got[i] - exact[i])));
    CHECK(worst < 0.1);  // sums of 45 products of values in [-1, 1], each operand off by 2^-9
    CHECK(error_of([] { ProductPrecision p(ComputeType::Int8); }).find("int8") != std::string::npos);
}

// oneDNN's matmul as gemm's seam: in float32 it runs on every CPU, so its mechanics (views,
// transposes, alpha and beta, slabs, the cache of primitives) are checked here against sgemm;
// in bfloat16 where the CPU has the units, against the rounded operands' float32 product.
TEST_CASE("onednn_gemm: equal to gemm within float32's rounding, for views, transposes, alpha, beta, any thread count") {
    const std::size_t n = 29, k = 45;
    for (const std::size_t m : {std::size_t(1), std::size_t(33), std::size_t(700)}) {
        const auto a = random_vec(m * k + 3 * std::max(m, k), 3), b = random_vec(n * k, 4);
        for (const Op op_a : {Op::N, Op::T})
            for (const Op op_b : {Op::N, Op::T})
                for (const bool view : {false, true}) {
                    CAPTURE(m);
                    CAPTURE(int(op_a));
                    CAPTURE(int(op_b));
                    CAPTURE(view);
                    // A with rows 3 longer than they are wide; C a view into a wider matrix or dense.
                    const ConstMat am = op_a == Op::N ? ConstMat{a.data(), m, k, k + 3} : ConstMat{a.data(), k, m, m + 3};
                    const ConstMat bm = op_b == Op::N ? mat(b.data(), k, n) : mat(b.data(), n, k);
                    const std::size_t ldc = view ? n + 5 : n;
                    for (const float beta : {0.0f, 0.25f}) {
                        std::vector<float> want(m * ldc, 0.5f), got(m * ldc, 0.5f), two(m * ldc, 0.5f);
                        const float alpha = beta == 0.0f ? 1.0f : 0.75f;
                        gemm({want.data(), m, n, ldc}, am, op_a, bm, op_b, alpha, beta);
                        set_num_threads(1);
                        onednn_gemm({got.data(), m, n, ldc}, am, op_a, bm, op_b, alpha, beta, ComputeType::Float32);
                        set_num_threads(2);
                        onednn_gemm({two.data(), m, n, ldc}, am, op_a, bm, op_b, alpha, beta, ComputeType::Float32);
                        set_num_threads(0);
                        double off = 0;
                        for (std::size_t i = 0; i < m * ldc; ++i) off = std::max(off, double(std::fabs(got[i] - want[i])));
                        CHECK(off < 2e-5);  // the same products summed in another order
                        CHECK(got == two);
                        if (view) CHECK(got[n] == 0.5f);  // the columns beyond the view untouched
                    }
                }
    }
    std::vector<float> c(4);
    const auto a = random_vec(6, 5);
    CHECK(error_of([&] { onednn_gemm(mat(c.data(), 2, 2), mat(a.data(), 2, 3), Op::N, mat(a.data(), 2, 3), Op::N,
                                     1.0f, 0.0f, ComputeType::Float32); })
              .find("shapes do not match") != std::string::npos);
    const std::string bf16 = error_of([&] { onednn_gemm(mat(c.data(), 2, 2), mat(a.data(), 2, 3), Op::N,
                                                        mat(a.data(), 2, 3), Op::T, 1.0f, 0.0f, ComputeType::BFloat16); });
    if (compute_type_supported(ComputeType::BFloat16)) CHECK(bf16.empty());
    else CHECK(bf16.find("no matmul for these operands on this CPU") != std::string::npos);
}

TEST_CASE("onednn_gemm in bfloat16 (CPUs with the units): the rounded operands' product, summed in float32") {
    if (!compute_type_supported(ComputeType::BFloat16)) return;  // no bf16 units: the case above checks the refusal
    const std::size_t m = 300, n = 70, k = 96;
    const auto a = random_vec(m * k, 6), b = random_vec(n * k, 7);
    std::vector<float> ar(a), br(b);
    for (float& x : ar) x = round_to_bfloat16(x);
    for (float& x : br) x = round_to_bfloat16(x);
    std::vector<float> want(m * n), got(m * n), two(m * n);
    gemm(mat(want.data(), m, n), mat(ar.data(), m, k), Op::N, mat(br.data(), n, k), Op::T);
    set_num_threads(1);
    onednn_gemm(mat(got.data(), m, n), mat(a.data(), m, k), Op::N, mat(b.data(), n, k), Op::T, 1.0f, 0.0f,
                ComputeType::BFloat16);
    set_num_threads(2);
    onednn_gemm(mat(two.data(), m, n), mat(a.data(), m, k), Op::N, mat(b.data(), n, k), Op::T, 1.0f, 0.0f,
                ComputeType::BFloat16);
    set_num_threads(0);
    double off = 0;
    for (std::size_t i = 0; i < m * n; ++i) off = std::max(off, double(std::fabs(got[i] - want[i])));
    CHECK(off < 4e-4);  // 96 float32 roundings of sums below 96
    CHECK(got == two);
}

// The tolerance is bfloat16's, measured: each operand of each product is off by up to 2^-9
// relative, and through two layers of a random ReLU model that moves the whole gradient by
// 5-6% (in norm) and single tensors by up to about 15% (where ReLU gates flip); the key
// projections' biases, whose true gradient is 0 (softmax ignores a constant added to every
// score), are left out of the per-tensor check.
TEST_CASE("training in bfloat16: gradients within 10% of float32's (tensors 30%), the loss within 0.5%, any thread count the same bits") {
    for (NormPlacement norm : {NormPlacement::Post, NormPlacement::Pre}) {
        CAPTURE(norm == NormPlacement::Pre);
        ModelConfig c = tfm_test::small_config(23, 32, 4, 64, 2);
        c.norm = norm;
        const Model m = random_model(c, 5);
        const TrainBatch batch = make_train_batch({{5, 6, 7, 8, 9, 1}, {8, 9, 10, 1}, {11, 12, 13, 14, 1}},
                                                  {{10, 11, 12, 13}, {13, 14}, {15, 16, 17}}, c);
        TrainOptions f32;
        f32.dropout = 0.1f;
        f32.seed = 3;
        TrainOptions bf16 = f32;
        bf16.compute = ComputeType::BFloat16;
        struct Run {
            double loss = 0;
            Model grads;
        };
        auto run = [&](const TrainOptions& o, int threads) {
            set_num_threads(threads);
            Run r{0, zeros_like(m)};
            TrainingWorkspace ws;
            r.loss = forward_backward(m, batch, r.grads, o, ws).smoothed;
            set_num_threads(0);
            return r;
        };
        Run r32 = run(f32, 2), r16 = run(bf16, 2), r16_one = run(bf16, 1);
        const std::vector<float> g32 = gradients(r32.grads), g16 = gradients(r16.grads);
        CHECK(g16 == gradients(r16_one.grads));
        CHECK(r16.loss == r16_one.loss);
        CHECK(g16 != g32);
        CHECK(std::fabs(r16.loss - r32.loss) <= 5e-3 * std::fabs(r32.loss));
        CHECK(relative_difference(g16, g32) < 0.10);
        std::vector<std::vector<float>> t32, t16;
        std::vector<std::string> names;
        visit_parameters(r32.grads, [&](const std::string& name, float* p, std::size_t n) {
            names.push_back(name);
            t32.emplace_back(p, p + n);
        });
        visit_parameters(r16.grads, [&](const std::string&, float* p, std::size_t n) { t16.emplace_back(p, p + n); });
        for (std::size_t t = 0; t < names.size(); ++t) {
            if (names[t].find("k_proj.bias") != std::string::npos) continue;
            CAPTURE(names[t]);
            CHECK(relative_difference(t16[t], t32[t]) < 0.30);
        }
        // The rounding is the training pass's only: the scope ends with it.
        CHECK(ProductPrecision::current() == ComputeType::Float32);
    }
}

// Checkpoints hold float32 whatever the products were, so a run resumes in another compute
// type; and a resumed bfloat16 segment is the uninterrupted one, bit for bit.
TEST_CASE("training in bfloat16: checkpoints resume float32 -> bfloat16 -> float32 exactly") {
    const ModelConfig c = tfm_test::small_config(23, 32, 4, 64, 2);
    const TrainBatch batch = make_train_batch({{5, 6, 7, 8, 9, 1}, {8, 9, 10, 1}}, {{10, 11, 12, 13}, {13, 14}}, c);
    // A run: weights, Adam's moments, its step (held in place: Adam is made for its model).
    struct Run {
        Model model;
        Adam adam;
        TrainState state;
        Run(const ModelConfig& config, std::uint64_t seed) : model(random_model(config, seed)), adam(model, AdamOptions{}) {}
        // `steps` updates in compute type t, from the state's step on.
        void train(const TrainBatch& batch, ComputeType t, std::size_t steps) {
            TrainOptions o;
            o.compute = t;
            TrainingWorkspace ws;
            for (std::size_t i = 0; i < steps; ++i, ++state.step) {
                Model g = zeros_like(model);
                o.seed = state.step;
                const LossStats s = forward_backward(model, batch, g, o, ws);
                adam.update(model, g, 1.0 / double(s.tokens));
            }
        }
    };
    tfm_test::TempDir dir;
    // A new run (other weights) that takes a checkpoint's.
    const auto resumed = [&](const std::string& checkpoint) {
        auto r = std::make_unique<Run>(c, 99);
        load_checkpoint(checkpoint, r->model, r->adam, r->state);
        return r;
    };
    // Straight through: 3 updates in float32, 3 in bfloat16, 2 in float32.
    Run straight(c, 7);
    straight.train(batch, ComputeType::Float32, 3);
    straight.train(batch, ComputeType::BFloat16, 3);
    straight.train(batch, ComputeType::Float32, 2);
    // The same, stopped and resumed from a checkpoint at each change of type.
    Run first(c, 7);
    first.train(batch, ComputeType::Float32, 3);
    const auto second = resumed(save_checkpoint(dir.path, first.model, first.adam, first.state, 5));
    CHECK(gradients(second->model) == gradients(first.model));
    second->train(batch, ComputeType::BFloat16, 3);
    const auto third = resumed(save_checkpoint(dir.path, second->model, second->adam, second->state, 5));
    CHECK(third->state.step == 6);
    CHECK(gradients(third->model) == gradients(second->model));  // the bfloat16 segment's weights, float32 in the file
    third->train(batch, ComputeType::Float32, 2);
    CHECK(gradients(third->model) == gradients(straight.model));
    // And the bfloat16 segment did round: the same updates all in float32 end elsewhere.
    Run all32(c, 7);
    all32.train(batch, ComputeType::Float32, 8);
    CHECK(gradients(all32.model) != gradients(straight.model));
}
