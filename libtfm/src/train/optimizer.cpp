#include "tfm/train/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/model/parameter_spans.hpp"

namespace tfm {

double noam_learning_rate(std::size_t step, std::size_t d_model, std::size_t warmup, double factor) {
    const double s = double(std::max<std::size_t>(step, 1));
    const double w = double(std::max<std::size_t>(warmup, 1));
    return factor * std::pow(double(d_model), -0.5) * std::min(std::pow(s, -0.5), s * std::pow(w, -1.5));
}

double cooldown_factor(std::size_t step, std::size_t horizon, double fraction) {
    if (!(fraction > 0) || horizon == 0) return 1.0;
    if (step > horizon) return 0.0;
    const double wanted = std::round(std::min(fraction, 1.0) * double(horizon));
    const std::size_t length = std::max<std::size_t>(1, std::size_t(wanted));  // updates that fall
    const std::size_t full = horizon - length;                                   // updates before them
    if (step <= full) return 1.0;
    return double(horizon - step + 1) / double(length + 1);
}

namespace {

struct AdamConstants {
    float grad_scale, b1, one_minus_b1, b2, one_minus_b2, step_size, inv_c2, eps;
};

// n elements: the moments m, v from the gradient g, then the parameters p. Four separate
// arrays (restrict: the loop vectorises).
void adam_step(float* __restrict p, const float* __restrict g, float* __restrict m, float* __restrict v, std::size_t n,
               AdamConstants k) {
    for (std::size_t i = 0; i < n; ++i) {
        const float gi = g[i] * k.grad_scale;
        m[i] = k.b1 * m[i] + k.one_minus_b1 * gi;
        v[i] = k.b2 * v[i] + k.one_minus_b2 * gi * gi;
        p[i] -= k.step_size * m[i] / (std::sqrt(v[i] * k.inv_c2) + k.eps);
    }
}

}  // namespace

Adam::Adam(const Model& m, const AdamOptions& opt) : opt_(opt), d_model_(m.config.d_model) {
    visit_parameters(const_cast<Model&>(m), [&](const std::string&, float*, std::size_t n) {
        m_.emplace_back(n, 0.0f);
        v_.emplace_back(n, 0.0f);
    });
}

double Adam::learning_rate() const {
    return noam_learning_rate(step_ + 1, d_model_, opt_.warmup, opt_.lr_factor) *
           cooldown_factor(step_ + 1, horizon_, opt_.cooldown);
}

double Adam::update(Model& model, Model& grads, double grad_scale) {
    const auto params = parameter_spans(model), gs = parameter_spans(grads);
    if (params.size() != m_.size() || gs.size() != m_.size()) throw Error("Adam: the model's structure changed");
    // Chunks of the parameters over the thread pool (the result does not depend on the split).
    constexpr std::size_t kChunk = 1 << 15;
    std::vector<std::pair<std::size_t, std::size_t>> chunks;  // (tensor, first element)
    for (std::size_t t = 0; t < params.size(); ++t)
        for (std::size_t i = 0; i < params[t].second; i += kChunk) chunks.push_back({t, i});
    // The gradient norm: a sum of squares per chunk in parallel, the chunks added in order.
    std::vector<double> chunk_sq(chunks.size());
    parallel_for(chunks.size(), [&](std::size_t c) {
        const auto [t, first] = chunks[c];
        const float* g = gs[t].first;
        double acc[8] = {};
        const std::size_t last = std::min(gs[t].second, first + kChunk);
        std::size_t i = first;
        for (; i + 8 <= last; i += 8)
            for (std::size_t l = 0; l < 8; ++l) acc[l] += double(g[i + l]) * double(g[i + l]);
        for (; i < last; ++i) acc[0] += double(g[i]) * double(g[i]);
        double s = 0;
        for (double a : acc) s += a;
        chunk_sq[c] = s;
    });
    double sq = 0;
    for (double s : chunk_sq) sq += s;
    const double norm = std::sqrt(sq) * grad_scale;
    double scale = grad_scale;
    if (opt_.clip_norm > 0 && norm > opt_.clip_norm) scale *= opt_.clip_norm / norm;
    const double lr = learning_rate();
    ++step_;
    const double b1 = opt_.beta1, b2 = opt_.beta2;
    const double c1 = 1.0 - std::pow(b1, double(step_)), c2 = 1.0 - std::pow(b2, double(step_));
    const float a = float(lr / c1), inv_c2 = float(1.0 / c2), eps = float(opt_.eps), gs_scale = float(scale);
    // float everywhere in the loop: it vectorises
    const float fb1 = float(b1), fb2 = float(b2), gb1 = float(1.0 - b1), gb2 = float(1.0 - b2);
    parallel_for(chunks.size(), [&](std::size_t c) {
        const auto [t, first] = chunks[c];
        const std::size_t last = std::min(params[t].second, first + kChunk);
        adam_step(params[t].first + first, gs[t].first + first, m_[t].data() + first, v_[t].data() + first,
                  last - first, {gs_scale, fb1, gb1, fb2, gb2, a, inv_c2, eps});
    });
    return norm;
}

}  // namespace tfm
