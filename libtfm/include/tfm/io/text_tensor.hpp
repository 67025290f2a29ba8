// The text tensor format (docs/design.md §3): numbers separated by spaces, one matrix row per
// line, a blank line between tensors; "# shape: 2 5 64" before a tensor whose rank is not 2
// (and before any empty tensor); other lines starting with '#' are comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tfm/io/io.hpp"
#include "tfm/base/tensor.hpp"

namespace tfm {

// Reads the next tensor; nullopt at end of input. A tensor whose numbers are all written as
// integers comes back as ids, any other as floats. `line_no` counts lines across calls and
// is used in messages. A tensor of more than max_bytes / 8 values is refused as it is read:
// integers are exact int64 (never rounded through a double), and out of range is an error.
std::optional<Record> read_text_tensor(Input& in, std::size_t& line_no,
                                       std::uint64_t max_bytes = std::uint64_t(1) << 32);

// Whitespace-separated integers ("3 1 4"), or nullopt when the text is anything else.
std::optional<std::vector<std::int64_t>> parse_integers(std::string_view text);

// Writing: the preamble ("# shape: ..." line, or nothing for a non-empty matrix), the values
// row by row, then one blank line.
std::string text_preamble(const Shape& shape);

class TextValueWriter {
public:
    TextValueWriter(Output& out, std::size_t cols) : out_(out), cols_(cols ? cols : 1) {}
    void append(const float* data, std::size_t n);
    void append(const std::int64_t* data, std::size_t n);

private:
    Output& out_;
    std::size_t cols_;
    std::size_t col_ = 0;
};

}  // namespace tfm
