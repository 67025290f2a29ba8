#include "tfm/train/progress_line.hpp"

#include <algorithm>
#include <cstdio>

namespace tfm {

std::string ProgressLine::update(const StepReport& r, std::size_t horizon) {
    seconds_ += r.seconds;
    const double per_step = seconds_ / double(std::max<std::size_t>(r.step - std::min(r.step, first_), 1));
    const double loss = r.loss.smoothed / double(std::max<std::size_t>(r.loss.tokens, 1));
    const double rate = r.seconds > 0 ? double(r.loss.tokens) / r.seconds : 0.0;
    const double minutes = per_step * double(horizon - std::min(r.step, horizon)) / 60.0;
    char line[256];
    std::snprintf(line, sizeof line, "step %zu/%zu epoch %zu loss %.3f lr %.2e %.0f tokens/s ETA %.0f min", r.step,
                  horizon, r.epoch, loss, r.learning_rate, rate, minutes);
    return line;
}

}  // namespace tfm
