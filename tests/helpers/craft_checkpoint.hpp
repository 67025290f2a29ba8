// Files a stranger could hand tfm, built from a description: PyTorch checkpoints in both of
// torch.save's formats (zip and legacy) with any storage sizes, views, offsets, shapes,
// strides and dtypes, and .npz archives with any .npy header over any data, stored or
// deflated. The unit tests build the crafted regression files with it; the structure-aware
// fuzz targets (tests/fuzz/fuzz_torch_structured.cpp, fuzz_npz_structured.cpp) turn fuzzer
// bytes into a description, so that mutation reaches the readers' arithmetic instead of
// dying in the pickle or zip framing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tfm_craft {

struct Storage {
    std::string key = "0";
    std::string type = "FloatStorage";  // torch.<type> (any name: unknown ones must be refused)
    std::int64_t numel = 0;             // as declared in the persistent id
    std::string bytes;                  // what the file holds for it
    std::int64_t stored_numel = -1;     // legacy: the count written before the bytes (-1: numel)
};

struct View {  // legacy format only: a view of a root storage
    std::string key = "v";
    std::int64_t offset = 0, size = 0;
};

struct Tensor {
    std::string name = "w";
    std::size_t storage = 0;  // index into Checkpoint::storages
    bool has_view = false;
    View view;
    std::int64_t offset = 0;
    std::vector<std::int64_t> shape, stride;
    bool as_parameter = false;  // wrapped in torch._utils._rebuild_parameter
};

struct Checkpoint {
    bool legacy = false;
    bool deflate = false;  // zip format: compress the entries
    std::vector<Storage> storages;
    std::vector<Tensor> tensors;
};

// The bytes of the checkpoint file.
std::string torch_bytes(const Checkpoint& ck);

struct NpyEntry {
    std::string member = "a.npy";  // the zip entry's name
    std::string header;            // the .npy dictionary text, e.g. {'descr': '<f4', ...}
    int version = 1;               // .npy format version (1: 2-byte length, 2 and 3: 4-byte)
    std::string data;              // the bytes after the preamble
    bool deflate = false;
};

// The bytes of a .npz archive of these entries, in order.
std::string npz_bytes(const std::vector<NpyEntry>& entries);

// Floats as little-endian bytes.
std::string float_bytes(const std::vector<float>& v);

}  // namespace tfm_craft
