// A model directory (docs/design.md §4): config.json, model.safetensors (or pytorch_model.bin),
// source.spm and target.spm (or one shared spm.model), optional vocab.json (and
// target_vocab.json), optional generation_config.json. Read by every tool that runs a
// model; written atomically by tfm-init and training.
#pragma once

#include <optional>
#include <string>

#include "tfm/model/generation.hpp"
#include "tfm/model/model.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

struct ModelDir {
    std::string path;
    Model model;
    Tokenizer tokenizer;
    GenerationConfig generation;  // generation_config.json (or config.json's generation keys)
    std::string weights;          // the weights file read
};

// Loads and checks everything; the error names the file and what is wrong with it. With
// `pack`, the weights come packed for inference in that compute type (load_model_weights).
ModelDir load_model_dir(const std::string& path, std::optional<ComputeType> pack = {});

// Writes config.json and model.safetensors (each atomically, weights as dtype F32, F16, BF16
// or I8: save_model_weights) into dir, creating it.
void save_model(const std::string& dir, const Model& model, const std::string& dtype = "F32");

// Copies the SentencePiece models into dir as source.spm and target.spm (the same file twice
// for a shared vocabulary).
void install_spm(const std::string& dir, const std::string& source_spm, const std::string& target_spm);

// Copies the tokenizer files of model directory `from` (tokenizer_files) into dir.
void copy_tokenizer(const std::string& from, const std::string& dir);

}  // namespace tfm
