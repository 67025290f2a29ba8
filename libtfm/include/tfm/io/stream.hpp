// Tensor streams (docs/design.md §3): a concatenation of .npy arrays, or the text format.
// Read record by record with bounded memory; the input format is detected from the first
// bytes, the output format is chosen by the caller (never binary to a terminal).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tfm/io/io.hpp"
#include "tfm/io/npy.hpp"
#include "tfm/base/tensor.hpp"
#include "tfm/io/text_tensor.hpp"

namespace tfm {

enum class Format { Npy, Text };

Format parse_format(const std::string& name);  // "npy" | "text"; throws UsageError

// The largest record a reader accepts, in bytes of its data: 4 GiB, or the value of the
// environment variable TFM_MAX_RECORD_BYTES.
std::uint64_t max_record_bytes();

class TensorReader {
public:
    explicit TensorReader(Input& in);

    // The next record, or nullopt at the end of the stream. Errors read "record N: ...".
    std::optional<Record> next();
    // Like next(), but end of input is an error saying what was expected.
    Record expect(const std::string& what);

    std::size_t records_read() const { return count_; }
    std::optional<Format> format() const { return format_; }

private:
    Input& in_;
    std::optional<Format> format_;
    std::size_t count_ = 0;
    std::size_t line_no_ = 0;
    Record read_npy();
};

class TensorWriter {
public:
    // Format::Npy to a terminal writes text instead.
    TensorWriter(Output& out, Format format);

    void write(const float* data, const Shape& shape);
    void write(const std::int64_t* data, const Shape& shape);
    // Any contiguous row-major xtensor container (xarray, xtensor, views are not accepted).
    template <class A>
    void write(const A& a) {
        write(a.data(), Shape(a.shape().begin(), a.shape().end()));
    }
    void write(const Record& r);

    // A record written piecewise (e.g. generated in chunks): begin, append until the shape's
    // element count is reached, end.
    void begin(DType dtype, const Shape& shape);  // DType::F32 or DType::I64
    void append(const float* data, std::size_t n);
    void append(const std::int64_t* data, std::size_t n);
    void end();

    void flush() { out_.flush(); }
    Format format() const { return format_; }

private:
    Output& out_;
    Format format_;
    DType dtype_ = DType::F32;
    std::size_t expected_ = 0, appended_ = 0;
    std::optional<TextValueWriter> text_;
    bool open_ = false;
    template <class T>
    void append_values(const T* data, std::size_t n, DType dtype);
};

}  // namespace tfm
