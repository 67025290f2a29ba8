// The paper's optimiser: Adam (beta1 0.9, beta2 0.98, eps 1e-9) with the learning rate
//   lr(step) = factor * D^-0.5 * min(step^-0.5, step * warmup^-1.5)
// and optional clipping of the global gradient norm. An optional cooldown makes the rate fall
// linearly to zero over the last part of a run of known length (its horizon): a run that a
// budget of updates ends stops at a settled point instead of mid-descent.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/model/model.hpp"

namespace tfm {

struct AdamOptions {
    double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
    double lr_factor = 1.0;
    std::size_t warmup = 4000;
    double clip_norm = 0.0;  // 0: no clipping
    double cooldown = 0.0;   // the fraction of the horizon's updates at its end where the rate falls to 0
};

// The schedule of paper §5.3 at step >= 1.
double noam_learning_rate(std::size_t step, std::size_t d_model, std::size_t warmup, double factor);

// What the cooldown multiplies the rate of update `step` (>= 1) by, in a run of `horizon`
// updates whose last round(fraction * horizon) (at least 1) fall linearly: 1 before them,
// then L/(L+1), (L-1)/(L+1), ..., 1/(L+1) at the horizon for a cooldown of L updates; 0 past
// the horizon. fraction 0 or horizon 0 (unknown): 1 always.
double cooldown_factor(std::size_t step, std::size_t horizon, double fraction);

class Adam {
public:
    Adam(const Model& m, const AdamOptions& opt);

    // One update from grads (sums over a batch), scaled by grad_scale first (e.g. 1/tokens).
    // Returns the gradient norm before clipping. Advances the step count.
    double update(Model& m, Model& grads, double grad_scale);

    std::size_t steps() const { return step_; }
    double learning_rate() const;  // at the next update
    // The run ends after update `horizon` (0: unknown); the cooldown counts back from it.
    void set_horizon(std::size_t horizon) { horizon_ = horizon; }
    std::size_t horizon() const { return horizon_; }
    const AdamOptions& options() const { return opt_; }

    // The moment estimates, tensor by tensor in visit_parameters order (for checkpoints).
    std::vector<std::vector<float>>& first_moments() { return m_; }
    std::vector<std::vector<float>>& second_moments() { return v_; }
    void set_steps(std::size_t s) { step_ = s; }

private:
    AdamOptions opt_;
    std::size_t d_model_;
    std::size_t step_ = 0;
    std::size_t horizon_ = 0;
    std::vector<std::vector<float>> m_, v_;
};

}  // namespace tfm
