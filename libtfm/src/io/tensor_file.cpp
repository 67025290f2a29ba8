#include "tfm/io/tensor_file.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>

#include "tfm/base/error.hpp"
#include "tfm/base/half.hpp"

namespace tfm {

void TensorFile::expect_shape(const std::string& name, const Shape& expected) const {
    const Shape s = shape(name);  // throws when missing, naming the file and the tensor
    if (s != expected)
        throw Error(path() + ": tensor '" + name + "' has shape " + shape_str(s) + ", expected " + shape_str(expected));
}

FloatArray TensorFile::get(const std::string& name, const Shape& expected) const {
    expect_shape(name, expected);
    return get(name);
}

void TensorFile::read(const std::string& name, const Shape& expected, float* dst) const {
    expect_shape(name, expected);
    read_into(name, dst);
}

std::size_t TensorFile::checked_row_size(const std::string& name, std::size_t row0, std::size_t rows) const {
    const Shape s = shape(name);
    if (s.size() < 2 || row0 > s[0] || rows > s[0] - row0)
        throw Error(path() + ": tensor '" + name + "' " + shape_str(s) + " has no rows [" + std::to_string(row0) + "," +
                    std::to_string(row0 + rows) + ")");
    std::size_t n = 1;
    for (std::size_t i = 1; i < s.size(); ++i) n *= s[i];
    return n;
}

void TensorFile::read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* dst) const {
    const std::size_t width = checked_row_size(name, row0, rows);
    const FloatArray a = get(name);
    std::copy(a.data() + row0 * width, a.data() + (row0 + rows) * width, dst);
}

void TensorFile::read_into(const std::string& name, float* dst) const {
    const FloatArray a = get(name);
    std::copy(a.data(), a.data() + a.size(), dst);
}

std::string index_str(std::size_t flat, const Shape& shape) {
    std::vector<std::size_t> index(shape.size(), 0);
    for (std::size_t d = shape.size(); d > 0; --d) {  // the last dimension varies fastest
        if (shape[d - 1] == 0) break;
        index[d - 1] = flat % shape[d - 1];
        flat /= shape[d - 1];
    }
    std::string s = "[";
    for (std::size_t d = 0; d < index.size(); ++d) s += (d ? "," : "") + std::to_string(index[d]);
    return s + "]";
}

void check_finite(const float* values, std::size_t n, std::size_t first, const Shape& shape, const std::string& path,
                  const std::string& name) {
    // The exponent bits, all ones for Inf and NaN: one pass that vectorises, then the place.
    const auto* bits = reinterpret_cast<const std::uint32_t*>(values);
    std::uint32_t any = 0;
    for (std::size_t i = 0; i < n; ++i) any |= ((bits[i] & 0x7f800000u) == 0x7f800000u);
    if (!any) return;
    for (std::size_t i = 0; i < n; ++i)
        if ((bits[i] & 0x7f800000u) == 0x7f800000u) {
            const float v = values[i];
            throw Error(path + ": tensor '" + name + "' holds " + (v != v ? "NaN" : v > 0 ? "Inf" : "-Inf") + " at " +
                        index_str(first + i, shape) + " (weights must be finite)");
        }
}

std::size_t dtype_bits(const std::string& dtype) {
    static const std::map<std::string, std::size_t> bits = {
        {"BOOL", 8},  {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},   {"I8", 8},   {"F8_E5M2", 8},
        {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16}, {"U16", 16},   {"F16", 16}, {"BF16", 16}, {"I32", 32},
        {"U32", 32},  {"F32", 32},  {"C64", 64},  {"F64", 64},   {"I64", 64}, {"U64", 64}};
    auto it = bits.find(dtype);
    return it == bits.end() ? 0 : it->second;
}

std::size_t dtype_size(const std::string& dtype) {
    const std::size_t b = dtype_bits(dtype);
    return b % 8 == 0 ? b / 8 : 0;
}

namespace {


}  // namespace

bool decode_floats(float* dst, const unsigned char* src, std::size_t n, const std::string& dtype) {
    if (dtype == "F32") {
        if (n > 0) std::memcpy(dst, src, n * 4);
    } else if (dtype == "F16") {
        for (std::size_t i = 0; i < n; ++i) dst[i] = half_to_float(std::uint16_t(src[2 * i] | (src[2 * i + 1] << 8)));
    } else if (dtype == "BF16") {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t bits = std::uint32_t(src[2 * i] | (src[2 * i + 1] << 8)) << 16;
            std::memcpy(dst + i, &bits, 4);
        }
    } else if (dtype == "F64") {
        for (std::size_t i = 0; i < n; ++i) {
            double d;
            std::memcpy(&d, src + 8 * i, 8);
            dst[i] = static_cast<float>(d);
        }
    } else {
        return false;
    }
    return true;
}

}  // namespace tfm
