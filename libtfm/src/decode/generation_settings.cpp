#include "tfm/decode/generation_settings.hpp"

#include <algorithm>

namespace tfm {

void apply_generation(DecodeOptions& o, const GenerationConfig& g, const GivenSettings& given) {
    if (!g.present()) return;
    if (g.num_beams && !given.beam && !o.search.sampling) o.search.beam = std::max(*g.num_beams, o.search.n_best);
    if (!given.length_penalty) {
        o.search.penalty = LengthPenalty::Power;
        o.search.alpha = g.length_penalty.value_or(1.0);
    }
    if (g.max_length && !given.max_length) o.max_len = std::max<std::size_t>(*g.max_length, 2) - 1;
    if (g.min_length && !given.min_length) o.search.min_len = *g.min_length > 0 ? *g.min_length - 1 : 0;
    if (o.max_len && o.search.min_len > o.max_len) o.search.min_len = o.max_len;
    o.search.bad_words = g.bad_words_ids;
    if (g.forced_eos_token_id) o.search.eos_forced_at = o.max_len;  // HF: at max_length
    if (g.forced_bos_token_id && o.forced_first.empty()) o.forced_first_all = *g.forced_bos_token_id;
    if (g.early_stopping) o.search.early_stopping = *g.early_stopping;
}

}  // namespace tfm
