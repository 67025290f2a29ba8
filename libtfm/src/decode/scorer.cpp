#include "tfm/decode/scorer.hpp"

#include <algorithm>
#include <optional>

#include "tfm/base/error.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"

namespace tfm {

namespace {

constexpr std::size_t kRowsPerProjection = 256;  // output rows [256,V] computed at a time

// Scores pairs idx (one batch): out[idx[i]].
void score_batch(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                 const std::vector<std::vector<std::int64_t>>& targets, const std::vector<std::size_t>& idx,
                 EncoderWorkspace& ews, DecoderWorkspace& dws, CrossAttentionCapture* cross, std::size_t heads,
                 std::vector<TargetScore>& out) {
    const ModelConfig& c = m.config;
    std::vector<std::vector<std::int64_t>> src_seqs, tgt_inputs;
    for (std::size_t i : idx) {
        src_seqs.push_back(sources[i]);
        std::vector<std::int64_t> in{c.decoder_start_id};  // the labels, shifted right
        in.insert(in.end(), targets[i].begin(), targets[i].end() - 1);
        tgt_inputs.push_back(std::move(in));
    }
    const TokenBatch src = make_token_batch(src_seqs, c.pad_id), tgt = make_token_batch(tgt_inputs, c.pad_id);
    xt::xtensor<float, 2> memory;
    encoder_forward(memory, m, src, ews);
    std::vector<float> states;  // [B*T,D]
    decoder_stack(states, m, src, mat(memory.data(), memory.shape(0), c.d_model), tgt, dws, nullptr, nullptr, cross);
    if (cross) {  // [B,H,T,S] -> per pair and target token, the first heads' mean over its source
        const std::size_t h_all = c.decoder_heads, t_len = tgt.len, s_len = src.len;
        for (std::size_t b = 0; b < idx.size(); ++b) {
            auto& rows = out[idx[b]].attention;
            rows.resize(tgt.lengths[b]);
            for (std::size_t t = 0; t < tgt.lengths[b]; ++t)  // pair b's [H,T,S], row t of each head
                mean_of_heads(rows[t], cross->weights.data() + (b * h_all * t_len + t) * s_len, heads, t_len * s_len,
                              src.lengths[b]);
        }
    }
    // The rows that are real tokens, a chunk at a time: projection, log-softmax, the label's entry.
    struct Row {
        std::size_t pair, t;
    };
    std::vector<Row> rows;
    for (std::size_t b = 0; b < idx.size(); ++b) {
        out[idx[b]].token_logprobs.assign(tgt.lengths[b], 0.0f);
        for (std::size_t t = 0; t < tgt.lengths[b]; ++t) rows.push_back({b, t});
    }
    const std::size_t d = c.d_model, v = c.target_vocab();
    std::vector<float> x, logits;
    for (std::size_t at = 0; at < rows.size(); at += kRowsPerProjection) {
        const std::size_t n = std::min(kRowsPerProjection, rows.size() - at);
        x.resize(n * d);
        logits.resize(n * v);
        for (std::size_t r = 0; r < n; ++r) {
            const float* row = states.data() + (rows[at + r].pair * tgt.len + rows[at + r].t) * d;
            std::copy(row, row + d, x.data() + r * d);
        }
        output_logits(mat(logits.data(), n, v), mat(static_cast<const float*>(x.data()), n, d), m);
        log_softmax_rows(mat(logits.data(), n, v), c.pad_id);
        for (std::size_t r = 0; r < n; ++r) {
            const Row& row = rows[at + r];
            const std::int64_t label = targets[idx[row.pair]][row.t];
            out[idx[row.pair]].token_logprobs[row.t] = logits[r * v + std::size_t(label)];
        }
    }
    for (std::size_t i : idx) {
        double sum = 0;
        for (float lp : out[i].token_logprobs) sum += lp;
        out[i].logprob = sum;
    }
}

}  // namespace

std::vector<TargetScore> score_targets(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                                       const std::vector<std::vector<std::int64_t>>& targets, std::size_t batch_size,
                                       const DecodeOptions::Attention* attention) {
    const ModelConfig& c = m.config;
    std::optional<CrossAttentionCapture> cross;
    std::size_t heads = 0;
    if (attention) {
        cross.emplace();
        cross->layer = attention_layer(m, *attention);
        heads = attention->heads ? attention->heads : c.decoder_heads;
    }
    if (sources.size() != targets.size())
        throw Error("scoring: " + std::to_string(sources.size()) + " sources and " + std::to_string(targets.size()) +
                    " targets");
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        if (sources[i].empty() || targets[i].empty())
            throw Error("scoring: pair " + std::to_string(i) + " has an empty source or target (eos at least)");
        if (sources[i].size() > c.max_positions || targets[i].size() > c.max_positions)
            throw Error("scoring: pair " + std::to_string(i) + " is longer than the model's " +
                        std::to_string(c.max_positions) + " positions");
        for (std::int64_t id : targets[i])
            if (id < 0 || std::size_t(id) >= c.target_vocab())
                throw Error("scoring: pair " + std::to_string(i) + ": target id " + std::to_string(id) +
                            " is outside the vocabulary of " + std::to_string(c.target_vocab()));
        lengths.push_back(std::max(sources[i].size(), targets[i].size()));
    }
    std::vector<TargetScore> out(sources.size());
    EncoderWorkspace ews;
    DecoderWorkspace dws;
    for (const auto& idx : length_batches(lengths, batch_size))
        score_batch(m, sources, targets, idx, ews, dws, cross ? &*cross : nullptr, heads, out);
    return out;
}

}  // namespace tfm
