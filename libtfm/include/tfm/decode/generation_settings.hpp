// A model's own decoding settings (generation_config.json, or the same keys in config.json)
// laid over the options, as transformers' generate() applies them, except where the command
// line gave a setting of its own: beam (num_beams, never below n_best), the output cap
// (max_length - 1 generated tokens), min_length, bad_words_ids, forced_eos_token_id (eos as the
// max_length-th token), forced_bos_token_id (the first token, unless the options already force
// one per source), early_stopping, and HF's length penalty (power, length_penalty or 1.0) as soon as the
// model states any generation setting.
#pragma once

#include "tfm/decode/translator.hpp"
#include "tfm/model/generation.hpp"

namespace tfm {

// Which settings the user chose (those the model's never override).
struct GivenSettings {
    bool beam = false, length_penalty = false, max_length = false, min_length = false;
};

void apply_generation(DecodeOptions& o, const GenerationConfig& g, const GivenSettings& given);

}  // namespace tfm
