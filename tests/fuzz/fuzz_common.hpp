// What the fuzz targets share: writing bytes to a scratch file, and a tiny model directory
// (a SentencePiece model trained here, random weights) made once per fuzzing process.
#pragma once

#include <cstdint>
#include <string>

namespace tfm_fuzz {

// A directory of this process under /tmp, created on first use.
const std::string& scratch_dir();
// Writes bytes to scratch_dir()/name and returns the path.
std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size);
// Reads a tensor stream to its end: each record must have as many elements as its shape
// says (traps otherwise); a tfm::Error ends the stream quietly.
void read_stream(std::string bytes);
// A valid tiny model directory (config.json, model.safetensors, source.spm, target.spm).
const std::string& tiny_model_dir();

}  // namespace tfm_fuzz
