#include "tfm/model/token_batch.hpp"

#include <algorithm>

namespace tfm {

TokenBatch make_token_batch(const std::vector<std::vector<std::int64_t>>& seqs, std::int64_t pad_id) {
    TokenBatch b;
    b.batch = seqs.size();
    for (const auto& s : seqs) b.len = std::max(b.len, s.size());
    b.ids.assign(b.batch * b.len, pad_id);
    for (std::size_t i = 0; i < b.batch; ++i) {
        std::copy(seqs[i].begin(), seqs[i].end(), b.ids.begin() + long(i * b.len));
        b.lengths.push_back(seqs[i].size());
    }
    return b;
}

std::vector<std::size_t> batch_positions(const TokenBatch& b, std::optional<std::int64_t> counted_pad) {
    std::vector<std::size_t> positions(b.batch * b.len);
    if (!counted_pad) {
        for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i % b.len;
        return positions;
    }
    for (std::size_t r = 0; r < b.batch; ++r) {
        std::size_t seen = 0;
        for (std::size_t s = 0; s < b.len; ++s) {
            const std::size_t i = r * b.len + s;
            positions[i] = b.ids[i] == *counted_pad ? kNoPosition : seen++;
        }
    }
    return positions;
}

std::vector<SequenceSpan> self_spans(const TokenBatch& b, bool all_keys) {
    std::vector<SequenceSpan> spans(b.batch);
    for (std::size_t i = 0; i < b.batch; ++i)
        spans[i] = {i * b.len, b.len, i * b.len, b.len, all_keys ? b.len : b.lengths[i], nullptr};
    return spans;
}

std::vector<SequenceSpan> cross_spans(const TokenBatch& q, const TokenBatch& src) {
    std::vector<SequenceSpan> spans(q.batch);
    for (std::size_t i = 0; i < q.batch; ++i)
        spans[i] = {i * q.len, q.len, i * src.len, src.len, src.lengths[i], nullptr};
    return spans;
}

}  // namespace tfm
