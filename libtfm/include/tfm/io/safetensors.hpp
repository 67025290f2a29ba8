// The safetensors format: u64 little-endian header length N, N bytes of JSON
// ({"name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, "__metadata__": {...}}),
// then the data, offsets relative to its start. The file is memory-mapped and validated in
// full before any tensor is handed out. An I8 tensor is a matrix of int8 rows with its float
// scales per row in "<name>_scale" ([rows]; value = int8 * scale), read back as float32.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tfm/base/tensor.hpp"
#include "tfm/io/tensor_file.hpp"

namespace tfm {

struct TensorInfo {
    std::string dtype;          // "F32", "F16", "BF16", "F64", "I32", "I64", ...
    Shape shape;
    std::size_t begin = 0, end = 0;  // byte offsets into the data section
};

class SafeTensors : public TensorFile {
public:
    // Maps and validates the file; throws Error naming the file and what is wrong.
    static SafeTensors open(const std::string& path);
    SafeTensors(SafeTensors&&) noexcept;
    SafeTensors& operator=(SafeTensors&&) noexcept;
    ~SafeTensors();

    const std::string& path() const override { return path_; }
    bool contains(const std::string& name) const override { return infos_.count(name) != 0; }
    std::vector<std::string> names() const override;
    Shape shape(const std::string& name) const override;
    const std::map<std::string, TensorInfo>& tensors() const { return infos_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    // The tensor as float32 (F32, F16, BF16, F64 and I8 with its scales are converted); throws
    // when missing.
    FloatArray get(const std::string& name) const override;
    using TensorFile::get;  // get(name, expected shape)

    bool reads_rows() const override { return true; }
    void read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* dst) const override;

protected:
    void read_into(const std::string& name, float* dst) const override;

private:
    SafeTensors() = default;
    // Elements [first, first+n) of a float tensor into out, their pages of the mapping given back.
    void decode(const std::string& name, const TensorInfo& info, std::size_t first, std::size_t n, float* out) const;
    std::string path_;
    const unsigned char* map_ = nullptr;
    std::size_t size_ = 0;
    std::size_t data_start_ = 0;
    std::map<std::string, TensorInfo> infos_;
    std::map<std::string, std::string> metadata_;
};

// The companion of an I8 matrix that holds its row scales.
inline constexpr const char* kScaleSuffix = "_scale";

struct NamedTensor {
    std::string name;
    const float* data;
    Shape shape;
    bool int8_rows = false;  // a matrix that an I8 file stores as int8 rows (quantize.hpp)
};

// Writes tensors atomically (temporary file in the same directory, then rename), stored as
// dtype F32, F16 or BF16 (rounded to nearest even; F16 overflow becomes inf), or I8: the
// tensors marked int8_rows as int8 with a scale per row (NaN or Inf there is an error naming
// the tensor and row), the others as F32.
void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {}, const std::string& dtype = "F32");

}  // namespace tfm
