// A checkpoint split into shards, as transformers saves large models: an index
// (model.safetensors.index.json or pytorch_model.bin.index.json: {"metadata": {...},
// "weight_map": {"tensor name": "shard file"}}) beside the shard files. Read as one TensorFile:
// each tensor from the shard the index names. The index is hostile: shard names must be plain
// file names in the index's directory (no '/', no "..", no hidden files), every shard must exist
// before anything is read, and a tensor missing from its shard is an error naming both. Shards
// are opened one at a time (the last one used stays open), so reading a sharded PyTorch
// checkpoint holds one shard's bytes at a time, not all of them. Reads may come from several
// threads at once (packing reads a tensor's rows in parallel): a shard stays alive while a
// read uses it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tfm/io/tensor_file.hpp"

namespace tfm {

class ShardedTensors : public TensorFile {
public:
    // Opens one shard file (SafeTensors::open or TorchCheckpoint::open).
    using Opener = std::function<std::unique_ptr<TensorFile>(const std::string& path)>;
    // Reads and checks the index at index_path; shards are opened with open_shard when needed.
    static ShardedTensors open(const std::string& index_path, Opener open_shard);
    ShardedTensors(ShardedTensors&&) noexcept;
    ShardedTensors& operator=(ShardedTensors&&) noexcept;
    ~ShardedTensors() override;

    const std::string& path() const override { return path_; }
    bool contains(const std::string& name) const override { return map_.count(name) != 0; }
    std::vector<std::string> names() const override;
    Shape shape(const std::string& name) const override;
    FloatArray get(const std::string& name) const override;
    using TensorFile::get;
    bool reads_rows() const override { return true; }
    void read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* dst) const override;
    std::size_t shards() const { return files_.size(); }

protected:
    void read_into(const std::string& name, float* dst) const override;

private:
    ShardedTensors() = default;
    // The shard holding `name`, opened (and the one open before let go) when it is not open.
    std::shared_ptr<const TensorFile> shard_of(const std::string& name) const;
    std::string path_, dir_;
    std::map<std::string, std::size_t> map_;  // tensor -> index into files_
    std::vector<std::string> files_;          // shard paths
    Opener opener_;
    mutable std::unique_ptr<std::mutex> lock_ = std::make_unique<std::mutex>();
    mutable std::shared_ptr<const TensorFile> open_;
    mutable std::size_t open_index_ = 0;
};

}  // namespace tfm
