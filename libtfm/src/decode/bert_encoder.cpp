#include "tfm/decode/bert_encoder.hpp"

namespace tfm {

std::vector<xt::xtensor<float, 2>> encode_bert(const BertModel& m, const std::vector<BertInput>& inputs, std::int64_t pad_id,
                                               std::size_t batch_size, EncodedCapture* capture) {
    const std::size_t d = m.config.d_model, heads = m.config.encoder_heads;
    std::vector<std::size_t> lengths;
    for (const BertInput& in : inputs) lengths.push_back(in.ids.size());
    std::vector<xt::xtensor<float, 2>> out;
    prepare_records(out, lengths, d, heads, capture);
    EncoderWorkspace ws;
    std::vector<float> x;
    for (const auto& idx : length_batches(lengths, batch_size)) {
        std::vector<std::vector<std::int64_t>> ids;
        for (std::size_t i : idx) ids.push_back(inputs[i].ids);
        const TokenBatch src = make_token_batch(ids, pad_id);
        std::vector<std::int64_t> segments(src.batch * src.len, 0);
        for (std::size_t b = 0; b < idx.size(); ++b)
            std::copy(inputs[idx[b]].segments.begin(), inputs[idx[b]].segments.end(), segments.begin() + long(b * src.len));
        AttentionCapture cap;
        if (capture) cap.layers = capture->layers;
        bert_forward(x, m, src, segments, ws, capture ? &cap : nullptr);
        batch_records(out, x, src, idx, d, heads, &cap, capture);
    }
    return out;
}

}  // namespace tfm
