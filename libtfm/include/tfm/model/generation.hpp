// What a model directory says about decoding: HF's generation_config.json, or the same keys in
// config.json (the 2020 OPUS-MT uploads keep num_beams, max_length and bad_words_ids there).
// Tools use these unless the command line says otherwise (docs/opus-mt.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfm/model/config.hpp"

namespace tfm {

// When beam search ends a sentence (HF's early_stopping). True: once as many hypotheses as
// beams have finished (tfm's and Marian's rule). False: once the best candidate's score at the
// current length cannot beat the worst of the best finished (transformers' default). Never:
// the same bound taken at the longest length the sentence may reach (for a positive length
// penalty).
enum class EarlyStopping { True, False, Never };

struct GenerationConfig {
    std::string source;                       // the file the settings came from ("" when none)
    std::optional<std::size_t> num_beams;
    std::optional<std::size_t> max_length;    // HF: tokens of the output including the decoder start
    std::optional<std::size_t> min_length;    // the same count
    std::optional<double> length_penalty;     // HF's exponent: score = logprob / length^alpha
    std::vector<std::vector<std::int64_t>> bad_words_ids;
    std::optional<std::int64_t> forced_eos_token_id;
    // HF's forced_bos_token_id: the first generated token (M2M100 and NLLB-200 force the target
    // language's code there; the directory rarely says which, the command line does).
    std::optional<std::int64_t> forced_bos_token_id;
    // early_stopping as the directory states it; an M2M100/NLLB directory that does not gets
    // transformers' default (False), others keep tfm's rule.
    std::optional<EarlyStopping> early_stopping;

    bool present() const { return !source.empty(); }
};

// generation_config.json of the directory if there is one, else the generation keys of
// config.json (present() false when it has none). Ids must lie inside the target vocabulary;
// errors name the file and the key.
GenerationConfig load_generation_config(const std::string& model_dir, const ModelConfig& config);

// The JSON text of a generation config (only the keys that are set).
std::string generation_config_json(const GenerationConfig& g, const ModelConfig& config);
// Writes it atomically as dir/generation_config.json.
void save_generation_config(const std::string& dir, const GenerationConfig& g, const ModelConfig& config);

}  // namespace tfm
