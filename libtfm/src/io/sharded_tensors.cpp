#include "tfm/io/sharded_tensors.hpp"

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"

namespace tfm {

namespace {
constexpr std::size_t kMaxIndexBytes = std::size_t(64) << 20;
constexpr std::size_t kMaxShards = 100000;

// A shard name the index may use: a plain file name in its own directory.
bool plain_file_name(const std::string& s) {
    return !s.empty() && s.size() <= 255 && s.find('/') == std::string::npos && s.find('\0') == std::string::npos &&
           s.front() != '.';
}
}  // namespace

ShardedTensors::ShardedTensors(ShardedTensors&&) noexcept = default;
ShardedTensors& ShardedTensors::operator=(ShardedTensors&&) noexcept = default;
ShardedTensors::~ShardedTensors() = default;

ShardedTensors ShardedTensors::open(const std::string& index_path, Opener open_shard) {
    ShardedTensors t;
    t.path_ = index_path;
    const std::size_t slash = index_path.rfind('/');
    t.dir_ = slash == std::string::npos ? "." : index_path.substr(0, slash);
    t.opener_ = std::move(open_shard);
    const Json j = read_json_file(index_path, kMaxIndexBytes);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        throw Error(index_path + ": not a checkpoint index (no \"weight_map\" object of tensor -> shard file)");
    const Json& map = j["weight_map"];
    if (map.empty()) throw Error(index_path + ": the weight_map names no tensors");
    std::map<std::string, std::size_t> shard_ids;
    for (const auto& [name, file] : map.items()) {
        if (!file.is_string() || !plain_file_name(file.get<std::string>()))
            throw Error(index_path + ": tensor '" + name + "' is mapped to " + json_excerpt(file) +
                        ", not the name of a file beside the index");
        const std::string f = file.get<std::string>();
        auto it = shard_ids.find(f);
        if (it == shard_ids.end()) {
            if (shard_ids.size() >= kMaxShards) throw Error(index_path + ": more than " + std::to_string(kMaxShards) + " shards");
            it = shard_ids.emplace(f, t.files_.size()).first;
            t.files_.push_back(t.dir_ + "/" + f);
            if (!path_present(t.files_.back()))
                throw Error(index_path + ": shard " + f + " (of tensor '" + name + "') is missing");
        }
        t.map_[name] = it->second;
    }
    return t;
}

std::vector<std::string> ShardedTensors::names() const {
    std::vector<std::string> out;
    for (const auto& [name, shard] : map_) out.push_back(name);
    return out;
}

std::shared_ptr<const TensorFile> ShardedTensors::shard_of(const std::string& name) const {
    const auto it = map_.find(name);
    if (it == map_.end()) throw Error(path_ + ": no tensor '" + name + "' in the index");
    std::shared_ptr<const TensorFile> shard;
    {
        std::lock_guard<std::mutex> hold(*lock_);
        if (!open_ || open_index_ != it->second) {
            open_.reset();  // one shard's bytes at a time (a reader still using it keeps it)
            open_ = opener_(files_[it->second]);
            open_index_ = it->second;
        }
        shard = open_;
    }
    if (!shard->contains(name))
        throw Error(path_ + ": the index puts tensor '" + name + "' in " + files_[it->second] + ", which lacks it");
    return shard;
}

Shape ShardedTensors::shape(const std::string& name) const { return shard_of(name)->shape(name); }

FloatArray ShardedTensors::get(const std::string& name) const { return shard_of(name)->get(name); }

void ShardedTensors::read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* dst) const {
    shard_of(name)->read_rows(name, row0, rows, dst);
}

void ShardedTensors::read_into(const std::string& name, float* dst) const {
    const auto f = shard_of(name);
    f->read(name, f->shape(name), dst);
}

}  // namespace tfm
