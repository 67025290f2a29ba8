// The progress of a training run on one line ("step 120/100000 epoch 1 loss 5.123 lr 1.20e-04
// 980 tokens/s ETA 42 min"), for a front end to rewrite in place on a terminal. The estimate
// of the time left comes from the mean time of the updates this process has taken so far.
#pragma once

#include <cstddef>
#include <string>

#include "tfm/train/trainer.hpp"

namespace tfm {

class ProgressLine {
public:
    // first_step: the step the run (or its resumption) starts from.
    explicit ProgressLine(std::size_t first_step) : first_(first_step) {}
    // The line after update r of a run of `horizon` updates.
    std::string update(const StepReport& r, std::size_t horizon);

private:
    std::size_t first_;
    double seconds_ = 0;  // of the updates since first_
};

}  // namespace tfm
