// Encoder memories for tfm-decode, a window at a time: records of a tensor stream, each checked
// to be [S,D] for the model's D (any float dtype the stream holds). Windows follow
// io/window.hpp: they stop where the stream would have to be waited for, and a bad record's
// error comes after the records before it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/io/io.hpp"
#include "tfm/io/stream.hpp"
#include "tfm/io/window.hpp"
#include "tfm/model/tokenizer.hpp"

namespace tfm {

class MemoryReader {
public:
    MemoryReader(Input& in, std::size_t d_model) : in_(in), reader_(in), d_(d_model) {}
    // Up to `size` more memories [S,D]; none once the stream is over.
    std::vector<xt::xtensor<float, 2>> next_window(std::size_t size);
    std::size_t records_read() const { return reader_.records_read(); }

private:
    Input& in_;
    TensorReader reader_;
    std::size_t d_;
    WindowReader<xt::xtensor<float, 2>> windows_;
};

// How source lines spell their tokens (what --replace-unk copies), cut as tfm-encode cut them
// to their memories' rows; a line of a different token count than its memory is not the line
// that was encoded, an error naming it (first: the 0-based index of lines[0]).
std::vector<std::vector<TokenSpelling>> spell_sources(const Tokenizer& tok, const ModelConfig& config,
                                                      const std::vector<std::string>& lines,
                                                      const std::vector<xt::xtensor<float, 2>>& memories, std::size_t first);

}  // namespace tfm
