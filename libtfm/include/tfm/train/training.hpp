// The training pass of the whole model: forward with dropout, keeping what the backward pass
// needs, the label-smoothed cross-entropy, and the backward pass into a Model-shaped gradient
// (Grads mirrors Params name for name). The forward is the one inference runs
// (encoder_stack, decoder_stack), with traces and dropout.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tfm/base/compute_type.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/model/token_batch.hpp"
#include "tfm/nn/loss.hpp"
#include "tfm/model/model.hpp"

namespace tfm {

// Sources [B,S] (pieces + eos), decoder inputs [B,T] (start id + target pieces) and the
// labels [B*T] the decoder must predict (target pieces + eos; pad where the row has ended).
struct TrainBatch {
    TokenBatch src, tgt;
    std::vector<std::int64_t> labels;
    std::size_t target_tokens = 0;  // labels that are not pad
};

// sources: ids ending in eos; targets: piece ids without eos.
TrainBatch make_train_batch(const std::vector<std::vector<std::int64_t>>& sources,
                            const std::vector<std::vector<std::int64_t>>& targets, const ModelConfig& c);

struct TrainOptions {
    float label_smoothing = 0.1f;  // epsilon: q = (1 - eps) one-hot + eps / V
    float dropout = 0.1f;          // on every sublayer output and on embeddings + positions
    float attention_dropout = 0.0f;   // on attention probabilities
    float activation_dropout = 0.0f;  // on the feed-forward's hidden layer
    std::uint64_t seed = 0;        // of the dropout masks
    // The products of forward and backward: float32, or bfloat16 with float32 sums (mixed
    // precision: weights, gradients, LayerNorm, softmax and the loss stay float32; gemm.hpp).
    ComputeType compute = ComputeType::Float32;
};


// The activations one pass keeps, reused from batch to batch.
class TrainingWorkspace {
public:
    TrainingWorkspace();
    ~TrainingWorkspace();
    // The logits [B*T,V] (final_logits_bias included) the last evaluate_loss scored (after
    // forward_backward the workspace holds their gradient instead).
    xt::xtensor<float, 2> logits() const;

private:
    class Pass;
    std::unique_ptr<Pass> pass_;
    friend LossStats forward_backward(const Model&, const TrainBatch&, Model&, const TrainOptions&, TrainingWorkspace&);
    friend LossStats evaluate_loss(const Model&, const TrainBatch&, float, TrainingWorkspace&);
};

// Forward (with dropout) and backward: gradients of the summed smoothed loss are added to
// grads (a zeros_like(m) accumulator).
LossStats forward_backward(const Model& m, const TrainBatch& batch, Model& grads, const TrainOptions& opt,
                           TrainingWorkspace& ws);

// Forward only, without dropout.
LossStats evaluate_loss(const Model& m, const TrainBatch& batch, float label_smoothing, TrainingWorkspace& ws);


}  // namespace tfm
