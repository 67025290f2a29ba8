// PyTorch checkpoints as transformers writes pytorch_model.bin: torch.save of a state dict,
// in the zip format (PyTorch 1.6 and later: archive/data.pkl plus one entry per storage) or
// the legacy one (a magic number, protocol and system-information pickles, the state dict's
// pickle, the list of storage keys, then each storage's element count and bytes). Read without
// Python: the restricted unpickler (pickle.hpp) rebuilds the tensor records and refuses every
// global outside the few torch.save uses; storages are shared, so tied weights stay tied.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tfm/io/tensor_file.hpp"

namespace tfm {

class TorchCheckpoint : public TensorFile {
public:
    // Reads and checks the whole file; throws Error naming the file and what is wrong.
    static TorchCheckpoint open(const std::string& path);
    // The same from bytes in memory (path only names them in messages).
    static TorchCheckpoint from_bytes(const std::string& bytes, const std::string& path);

    const std::string& path() const override { return path_; }
    bool contains(const std::string& name) const override { return tensors_.count(name) != 0; }
    std::vector<std::string> names() const override;
    Shape shape(const std::string& name) const override;
    FloatArray get(const std::string& name) const override;
    using TensorFile::get;  // get(name, expected shape)
    std::string dtype(const std::string& name) const;
    bool legacy() const { return legacy_; }

    struct Tensor {
        std::string dtype, storage;  // element type, storage key
        std::size_t offset = 0;      // in elements
        Shape shape, stride;
    };
    struct Storage {
        std::string dtype;
        std::size_t numel = 0;
        std::string bytes;
    };

private:
    std::string path_;
    bool legacy_ = false;
    std::map<std::string, Tensor> tensors_;
    std::map<std::string, Storage> storages_;
    friend struct TorchReader;
};

}  // namespace tfm
