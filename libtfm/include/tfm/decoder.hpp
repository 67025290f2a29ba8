// The decoder stack: masked self-attention, encoder-decoder attention and feed-forward per
// layer, then the output projection (+ final_logits_bias). Two entry points share the layer
// code: a full-sequence forward (teacher forcing: training, scoring, tests) and DecoderState,
// the incremental step of search with a key/value cache per layer, where the memory's keys
// and values are projected once per sentence and a step never recomputes the prefix.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/encoder.hpp"
#include "tfm/search.hpp"

namespace tfm {

struct DecoderWorkspace {
    MultiHeadWorkspace attn;
    SublayerBuffers sub;
    std::vector<float> hidden;
};

// logits [B*T,V] (before softmax) for decoder inputs tgt [B,T] (each starting with the
// decoder start id) over memory [B*S,D] of sources src.
void decoder_forward(xt::xtensor<float, 2>& logits, const Model& m, const TokenBatch& src,
                     const xt::xtensor<float, 2>& memory, const TokenBatch& tgt, DecoderWorkspace& ws);

// y [N,V] = x [N,D] W_out^T + final_logits_bias
void output_logits(Mat y, ConstMat x, const Model& m);

// In place, row by row: log-softmax, then the pad id set to -inf (never generated).
void log_softmax_rows(Mat logits, std::int64_t masked_id);

// Incremental decoding over the memory of a batch of sources. Rows are live hypotheses;
// row i starts as source i.
class DecoderState : public StepFunction {
public:
    // memory [B*S,D] for src; at most max_steps steps will be taken.
    DecoderState(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src, std::size_t max_steps);
    ~DecoderState() override;

    std::size_t vocab() const override;
    void step(const std::vector<std::int64_t>& tokens, Mat logprobs) override;
    void select(const std::vector<std::size_t>& rows) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tfm
