// The NumPy .npy format (versions 1.0, 2.0 and 3.0): the header of one array.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tfm/base/tensor.hpp"

namespace tfm {

enum class DType { F32, F64, I32, I64 };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);  // "float32", ...

struct NpyHeader {
    DType dtype = DType::F32;
    bool big_endian = false;
    bool fortran_order = false;
    Shape shape;
};

inline constexpr std::string_view kNpyMagic{"\x93NUMPY", 6};
// Largest header we accept; NumPy itself refuses headers over 10 kB by default.
inline constexpr std::size_t kMaxNpyHeader = std::size_t(1) << 20;

// The header dictionary as written, dtype not interpreted ('descr': "<f4", "|u1", ...).
struct NpyDict {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
};
NpyDict parse_npy_dict(std::string_view dict);

// Parses the header dictionary text, e.g. "{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }", for the dtypes of tensor streams. Throws Error naming what is wrong.
NpyHeader parse_npy_header(std::string_view dict);

// The full preamble (magic, version, length, padded dictionary) of a C-order
// little-endian array; version 1.0 unless the header needs 2.0.
std::string npy_preamble(DType dtype, const Shape& shape);

}  // namespace tfm
