// Search's view of the model: the StepFunction a DecoderState is. The adapter lives on the
// search side, so the decoder knows nothing of search.
#pragma once

#include "tfm/decode/search.hpp"
#include "tfm/model/decoder.hpp"

namespace tfm {

class DecoderSteps : public StepFunction {
public:
    explicit DecoderSteps(DecoderState& state) : state_(state) {}
    std::size_t vocab() const override { return state_.vocab(); }
    void step(const std::vector<std::int64_t>& tokens, Mat logprobs) override { state_.step(tokens, logprobs); }
    void select(const std::vector<std::size_t>& rows) override { state_.select(rows); }
    void attention(std::size_t row, std::vector<float>& out) const override { state_.attention(row, out); }

private:
    DecoderState& state_;
};

// search, greedy_search and beam_search over the model's incremental decoder.
inline std::vector<std::vector<Hypothesis>> search(DecoderState& state, std::size_t batch, const SearchOptions& opt) {
    DecoderSteps steps(state);
    return search(static_cast<StepFunction&>(steps), batch, opt);
}
inline std::vector<std::vector<Hypothesis>> greedy_search(DecoderState& state, std::size_t batch,
                                                          const SearchOptions& opt) {
    DecoderSteps steps(state);
    return greedy_search(static_cast<StepFunction&>(steps), batch, opt);
}
inline std::vector<std::vector<Hypothesis>> beam_search(DecoderState& state, std::size_t batch,
                                                        const SearchOptions& opt) {
    DecoderSteps steps(state);
    return beam_search(static_cast<StepFunction&>(steps), batch, opt);
}

}  // namespace tfm
