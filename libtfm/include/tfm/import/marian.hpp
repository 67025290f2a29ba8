// Marian's own model files, as the OPUS-MT and Tatoeba release zips hold them
// (docs/opus-mt.md): decoder.yml naming the model (*.npz, Marian's tensor names, its
// configuration inside as "special:model.yml") and the vocabularies (*.vocab.yml or .json,
// piece -> id; or the .spm files themselves), source.spm and target.spm.
//
// import_marian writes the model directory transformers' own converter would (HF Marian
// layout): "<pad>" appended as the last id with a zero embedding row and a zero logit bias,
// pad = decoder start (Marian starts decoding from a zero vector, which that row is),
// matrices transposed to [out,in], LayerNorm eps 1e-6 as Marian computes it, decoder.yml's
// beam size and length normalisation in generation_config.json. export_marian is the
// reverse for models of that shape; npz -> tfm -> npz gives back every weight bit for bit.
#pragma once

#include <string>

namespace tfm {

struct MarianFiles {
    std::string decoder_yml, npz, source_vocab, target_vocab, source_spm, target_spm;
};
// The files of a Marian release directory: decoder.yml's first model and its vocabularies
// (paths relative to the directory), or else the only *.npz and *.vocab.yml there.
MarianFiles marian_files(const std::string& dir);

// Converts; every check (configuration keys tfm cannot run, missing, misshapen or unknown
// tensors, vocabularies that do not fit) happens before anything is written, and out_dir
// appears whole or not at all (replacing what is there only when replace). dtype: F32, F16
// or BF16.
void import_marian(const std::string& marian_dir, const std::string& out_dir, const std::string& dtype = "F32",
                   bool replace = false);

// Writes out_dir/model.npz, vocab.yml (or source.vocab.yml and target.vocab.yml), decoder.yml,
// source.spm and target.spm from a tfm model directory whose model Marian can run: post-norm,
// sinusoidal positions in halves, swish or relu, vocab.json, pad = decoder start = the last
// id with zero embedding rows. Anything else is an Error naming what does not fit.
void export_marian(const std::string& model_dir, const std::string& out_dir, bool replace = false);

}  // namespace tfm
