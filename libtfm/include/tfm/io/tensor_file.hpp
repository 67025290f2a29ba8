// A file of named tensors, whatever its format (safetensors.hpp, torch_checkpoint.hpp): what
// loading a model asks of its weights file.
#pragma once

#include <string>
#include <vector>

#include "tfm/base/tensor.hpp"

namespace tfm {

class TensorFile {
public:
    virtual ~TensorFile() = default;
    virtual const std::string& path() const = 0;
    virtual bool contains(const std::string& name) const = 0;
    virtual std::vector<std::string> names() const = 0;
    virtual Shape shape(const std::string& name) const = 0;  // throws when missing
    // The tensor as float32 (wider and narrower float types converted); throws when missing
    // or not a float tensor, naming the file and the tensor.
    virtual FloatArray get(const std::string& name) const = 0;
    // Throws unless the tensor is there with shape `expected`; the error names both shapes.
    void expect_shape(const std::string& name, const Shape& expected) const;
    // As get(), and the shape must be `expected` (expect_shape).
    FloatArray get(const std::string& name, const Shape& expected) const;
    // As get(name, expected), into dst (as many floats as `expected` holds): a model's loader
    // reads each tensor straight into its place, with no copy in between.
    void read(const std::string& name, const Shape& expected, float* dst) const;

    // Whether read_rows reads only the rows asked for (else it reads the whole tensor each call).
    virtual bool reads_rows() const { return false; }
    // Rows [row0, row0+rows) of a tensor of two or more dimensions (rows along the first) into dst.
    virtual void read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* dst) const;

protected:
    // The tensor's values into dst (its shape checked by read); by default through get().
    virtual void read_into(const std::string& name, float* dst) const;
    // The floats per row of the tensor; throws unless rows [row0, row0+rows) are in it.
    std::size_t checked_row_size(const std::string& name, std::size_t row0, std::size_t rows) const;
};

// Weights must be finite: throws Error("path: tensor 'name' holds NaN at [i,j] ...") for the
// first NaN or Inf among values[0, n), which are elements [first, first + n) of a tensor of
// `shape` in row-major order. Every reader calls it on what it decodes.
void check_finite(const float* values, std::size_t n, std::size_t first, const Shape& shape, const std::string& path,
                  const std::string& name);
// "[1,7]": the row-major index of element `flat` of a tensor of `shape`.
std::string index_str(std::size_t flat, const Shape& shape);

// n values of dtype (F32, F16, BF16, F64; little-endian) at src -> float32 at dst. Returns
// false for another dtype.
bool decode_floats(float* dst, const unsigned char* src, std::size_t n, const std::string& dtype);

// Bytes per element of a dtype name (F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL, the
// 8-bit floats, C64); 0 if unknown or smaller than a byte.
std::size_t dtype_size(const std::string& dtype);
// Bits per element of every dtype the safetensors format defines, those smaller than a byte
// (F4, F6_E2M3, F6_E3M2) included; 0 if unknown.
std::size_t dtype_bits(const std::string& dtype);

}  // namespace tfm
