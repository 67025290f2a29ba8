// Files read in step with a tool's input, a line per input line: --source-text (what
// --replace-unk copies from) and --prefix-file (target prefixes each output starts with).
// The file that ends first, or goes on after the input, is an error naming it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tfm/io/line_reader.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

class AlignedLines {
public:
    AlignedLines(const std::string& path, const char* what)
        : lines_(std::make_unique<LineReader>(path)), path_(path), what_(what) {}
    // The lines of the next n inputs.
    std::vector<std::string> next(std::size_t n);
    // After the last input: the file must be over too.
    void finish();
    const std::string& path() const { return path_; }
    std::size_t lines_read() const { return read_; }

private:
    std::unique_ptr<LineReader> lines_;
    std::string path_, what_;
    std::size_t read_ = 0;
};

// The target prefixes of --prefix-file: text lines through the target tokenizer, no eos [P_i].
class PrefixReader {
public:
    PrefixReader(const std::string& path, const Tokenizer& tokenizer, const ModelConfig& config)
        : lines_(path, "prefix"), tokenizer_(tokenizer), config_(config) {}
    std::vector<std::vector<std::int64_t>> next(std::size_t n);
    void finish() { lines_.finish(); }

private:
    AlignedLines lines_;
    const Tokenizer& tokenizer_;
    const ModelConfig& config_;
};

}  // namespace tfm
