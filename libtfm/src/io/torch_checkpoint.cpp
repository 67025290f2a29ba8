#include "tfm/io/torch_checkpoint.hpp"

#include <cstring>

#include "tfm/base/checked.hpp"
#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/pickle.hpp"
#include "zip_archive.hpp"

namespace tfm {

namespace {

using pickle::Value;
using Kind = pickle::Value::Kind;

constexpr std::size_t kMaxFileBytes = std::size_t(1) << 36;  // 64 GiB
constexpr std::size_t kMaxRank = 16;
constexpr std::size_t kMaxElements = std::size_t(1) << 40;  // even an empty tensor's non-zero dimensions

// torch.<Name>Storage -> dtype
std::string storage_dtype(const std::string& global) {
    static const std::map<std::string, std::string> types = {
        {"torch.FloatStorage", "F32"}, {"torch.HalfStorage", "F16"},  {"torch.BFloat16Storage", "BF16"},
        {"torch.DoubleStorage", "F64"}, {"torch.LongStorage", "I64"}, {"torch.IntStorage", "I32"},
        {"torch.ShortStorage", "I16"},  {"torch.CharStorage", "I8"},  {"torch.ByteStorage", "U8"},
        {"torch.BoolStorage", "BOOL"}};
    auto it = types.find(global);
    return it == types.end() ? "" : it->second;
}

std::size_t as_size(const Value* v, const std::string& what, const std::string& path) {
    if (!v || !v->is(Kind::Int) || v->integer < 0)
        throw Error(path + ": " + what + " is not a non-negative integer");
    return std::size_t(v->integer);
}

Shape as_shape(const Value* v, const std::string& what, const std::string& path) {
    if (!v || !v->is(Kind::Tuple) || v->items.size() > kMaxRank) throw Error(path + ": " + what + " is not a tuple of sizes");
    Shape s;
    for (const Value* item : v->items) s.push_back(as_size(item, what, path));
    return s;
}

// Whether every element of the view (offset, shape, stride) lies in [0, numel): its furthest
// element, offset + sum (shape[d]-1)*stride[d], computed without overflow. An empty view
// touches nothing but its offset must still lie inside (or at the end of) the storage.
bool view_fits(std::size_t offset, const Shape& shape, const Shape& stride, std::size_t numel) {
    for (std::size_t dim : shape)
        if (dim == 0) return offset <= numel;
    std::size_t last = offset;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (!checked::mul_add(shape[d] - 1, stride[d], last, &last)) return false;
    return last < numel;
}

}  // namespace

// The unpickling of one checkpoint: what the hooks build, then the state dict walked.
struct TorchReader {
    TorchCheckpoint& ck;
    bool legacy;
    std::size_t limit;  // bytes a storage may hold: the file's size (legacy), the archive's expansion budget (zip)
    struct StorageRef {
        std::string key;
        bool view = false;           // a legacy view into the root storage:
        std::size_t offset = 0;      //   its first element there
        std::size_t view_size = 0;   //   and how many it has
    };

    pickle::Hooks hooks() {
        pickle::Hooks h;
        h.persistent = [this](pickle::Document& doc, const Value& pid) { return storage(doc, pid); };
        h.call = [this](pickle::Document& doc, const Value& f, const Value& args) { return call(doc, f, args); };
        return h;  // BUILD (an OrderedDict's _metadata) is ignored
    }

    // ('storage', torch.<T>Storage, key, location, numel[, view_metadata (legacy)])
    pickle::ValuePtr storage(pickle::Document& doc, const Value& pid) {
        const std::string& path = ck.path_;
        if (!pid.is(Kind::Tuple) || pid.items.size() < 5 || !pid.items[0]->is(Kind::String) ||
            pid.items[0]->text != "storage")
            throw Error(path + ": a persistent id that is not a storage");
        const Value& type = *pid.items[1];
        const std::string dtype = type.is(Kind::Global) ? storage_dtype(type.text) : "";
        if (dtype.empty())
            throw Error(path + ": storage type " + (type.is(Kind::Global) ? type.text : std::string("?")) +
                        " is not one tfm reads");
        if (!pid.items[2]->is(Kind::String)) throw Error(path + ": a storage key that is not a string");
        const std::string key = pid.items[2]->text;
        const std::size_t numel = as_size(pid.items[4], "a storage's size", path);
        if (numel > limit / dtype_size(dtype))  // a storage's bytes are in the file (or what the archive may expand to)
            throw Error(path + ": storage '" + key + "' claims " + std::to_string(numel) + " values, more than the " +
                        (legacy ? "file holds" : "archive may expand to"));
        auto ref = std::make_shared<StorageRef>();
        ref->key = key;
        if (legacy && pid.items.size() > 5 && !pid.items[5]->is(Kind::None)) {  // (view key, offset, size)
            const Value& view = *pid.items[5];
            if (!view.is(Kind::Tuple) || view.items.size() != 3 || !view.items[0]->is(Kind::String))
                throw Error(path + ": a storage view that is not (key, offset, size)");
            ref->view = true;
            ref->offset = as_size(view.items[1], "a storage view's offset", path);
            ref->view_size = as_size(view.items[2], "a storage view's size", path);
            if (!checked::span_fits(ref->offset, ref->view_size, numel))
                throw Error(path + ": storage view '" + (view.items[0]->text) + "' [" + std::to_string(ref->offset) + ", +" +
                            std::to_string(ref->view_size) + ") reaches past its storage '" + key + "' of " +
                            std::to_string(numel) + " values");
        }
        auto& st = ck.storages_[key];
        if (!st.dtype.empty() && (st.dtype != dtype || st.numel != numel))
            throw Error(path + ": storage '" + key + "' is declared twice differently");
        st.dtype = dtype;
        st.numel = numel;
        return doc.make_object("storage", ref);
    }

    pickle::ValuePtr call(pickle::Document& doc, const Value& f, const Value& args) {
        const std::string& path = ck.path_;
        if (f.text == "collections.OrderedDict") return doc.make(Kind::Dict);
        if (f.text == "torch._utils._rebuild_tensor_v2" || f.text == "torch._utils._rebuild_tensor") {
            // (storage, storage_offset, size, stride, ...)
            if (args.items.size() < 4 || !args.items[0]->is(Kind::Object) || args.items[0]->text != "storage")
                throw Error(path + ": " + f.text + " without a storage");
            const auto& ref = *std::static_pointer_cast<StorageRef>(args.items[0]->payload);
            auto t = std::make_shared<TorchCheckpoint::Tensor>();
            t->storage = ref.key;
            t->dtype = ck.storages_[ref.key].dtype;
            const std::size_t offset = as_size(args.items[1], "a tensor's storage offset", path);
            t->shape = as_shape(args.items[2], "a tensor's size", path);
            t->stride = as_shape(args.items[3], "a tensor's stride", path);
            if (t->stride.size() != t->shape.size())
                throw Error(path + ": a tensor's size and stride differ in rank");
            // A legacy view's tensor lies inside the view; then its offset is the view's plus its own.
            if (ref.view && !view_fits(offset, t->shape, t->stride, ref.view_size))
                throw Error(path + ": a tensor " + shape_str(t->shape) + " at offset " + std::to_string(offset) +
                            " reaches past its storage view of " + std::to_string(ref.view_size) + " values");
            if (!checked::add(ref.offset, offset, &t->offset))
                throw Error(path + ": a tensor's storage offset " + std::to_string(offset) + " overflows");
            return doc.make_object("tensor", t);
        }
        if (f.text == "torch._utils._rebuild_parameter") {  // (data, requires_grad, hooks)
            if (args.items.empty() || !args.items[0]->is(Kind::Object) || args.items[0]->text != "tensor")
                throw Error(path + ": a parameter without a tensor");
            return args.items[0];
        }
        throw Error(path + ": the pickle calls " + f.text + ", which a state dict never does (refused)");
    }

    // The state dict: names -> tensors (other entries, such as _metadata, are not tensors).
    void collect(const Value& root) {
        const std::string& path = ck.path_;
        if (!root.is(Kind::Dict)) throw Error(path + ": the checkpoint does not hold a state dict");
        for (std::size_t i = 0; i + 1 < root.items.size(); i += 2) {
            const Value& k = *root.items[i];
            const Value& v = *root.items[i + 1];
            if (!k.is(Kind::String)) throw Error(path + ": a state dict key that is not a string");
            if (!v.is(Kind::Object) || v.text != "tensor") continue;
            ck.tensors_[k.text] = *std::static_pointer_cast<TorchCheckpoint::Tensor>(v.payload);
        }
    }
};

namespace {

void check_storage_sizes(const std::map<std::string, TorchCheckpoint::Storage>& storages,
                         const std::map<std::string, TorchCheckpoint::Tensor>& tensors, const std::string& path) {
    for (const auto& [name, t] : tensors) {
        const auto& st = storages.at(t.storage);
        if (!view_fits(t.offset, t.shape, t.stride, st.numel))
            throw Error(path + ": tensor '" + name + "' " + shape_str(t.shape) + " at offset " + std::to_string(t.offset) +
                        " with strides " + shape_str(t.stride) + " reaches past its storage '" + t.storage + "' of " +
                        std::to_string(st.numel) + " values");
        // No more elements than its storage holds (a broadcast view, stride 0, is refused), and
        // an empty tensor's other dimensions within reason too (their strides must fit).
        std::size_t elements = 1;
        for (std::size_t dim : t.shape)
            if (!checked::mul(elements, dim, &elements) || elements > st.numel)
                throw Error(path + ": tensor '" + name + "' " + shape_str(t.shape) + " has more elements than its storage '" +
                            t.storage + "' of " + std::to_string(st.numel) + " values");
        try {
            checked_numel(t.shape, kMaxElements);
        } catch (const Error& e) {
            throw Error(path + ": tensor '" + name + "': " + e.what());
        }
    }
}

}  // namespace

TorchCheckpoint TorchCheckpoint::open(const std::string& path) {
    return from_bytes(read_regular_file(path, kMaxFileBytes), path);
}

TorchCheckpoint TorchCheckpoint::from_bytes(const std::string& bytes, const std::string& path) {
    TorchCheckpoint ck;
    ck.path_ = path;
    TorchReader reader{ck, !is_zip(bytes), bytes.size()};
    ck.legacy_ = reader.legacy;
    pickle::Hooks hooks = reader.hooks();
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (!reader.legacy) {
        ZipArchive zip(bytes, path);
        reader.limit = zip.budget();
        std::string prefix;
        for (const std::string& name : zip.names())
            if (name.size() >= 9 && name.compare(name.size() - 9, 9, "/data.pkl") == 0) prefix = name.substr(0, name.size() - 8);
        if (prefix.empty()) throw Error(path + ": a zip archive without data.pkl is not a PyTorch checkpoint");
        const std::string pkl = zip.read(prefix + "data.pkl");
        pickle::Document doc;
        pickle::unpickle(doc, reinterpret_cast<const unsigned char*>(pkl.data()), pkl.size(), nullptr, hooks,
                         path + " (data.pkl)");
        reader.collect(*doc.root);
        for (auto& [key, st] : ck.storages_) st.bytes = zip.read(prefix + "data/" + key, st.numel * dtype_size(st.dtype));
    } else {
        if (bytes.size() < 2 || p[0] != 0x80)
            throw Error(path + ": not a PyTorch checkpoint (neither a zip archive nor torch.save's legacy format)");
        std::size_t at = 0, used = 0;
        const auto next = [&](const std::string& what) {
            pickle::Document doc;
            pickle::unpickle(doc, p + at, bytes.size() - at, &used, hooks, path + " (" + what + ")");
            at += used;
            return doc;
        };
        {
            pickle::Document magic = next("magic number");
            static const char kMagic[] = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";  // 0x1950a86a20f9469cfc6c
            if (!magic.root->is(Kind::LongInt) || magic.root->text != std::string(kMagic, 10))
                throw Error(path + ": neither a zip archive nor a legacy PyTorch file (no magic number)");
        }
        pickle::Document protocol = next("protocol version");
        if (!protocol.root->is(Kind::Int) || protocol.root->integer != 1001)
            throw Error(path + ": legacy PyTorch protocol " +
                        (protocol.root->is(Kind::Int) ? std::to_string(protocol.root->integer) : std::string("?")) +
                        " (1001 expected)");
        pickle::Document info = next("system information");
        if (const Value* le = pickle::dict_get(*info.root, "little_endian"); le && le->is(Kind::Bool) && !le->boolean)
            throw Error(path + ": written on a big-endian machine, which tfm does not read");
        pickle::Document state = next("state dict");
        reader.collect(*state.root);
        pickle::Document keys = next("storage keys");
        if (!keys.root->is(Kind::List)) throw Error(path + ": the storage keys are not a list");
        for (const Value* k : keys.root->items) {
            if (!k->is(Kind::String)) throw Error(path + ": a storage key that is not a string");
            auto it = ck.storages_.find(k->text);
            if (it == ck.storages_.end()) throw Error(path + ": storage '" + k->text + "' was never declared");
            Storage& st = it->second;
            if (bytes.size() - at < 8) throw Error(path + ": truncated before storage '" + k->text + "'");
            std::uint64_t numel = 0;
            for (int i = 7; i >= 0; --i) numel = (numel << 8) | p[at + std::size_t(i)];
            at += 8;
            const std::size_t size = dtype_size(st.dtype);
            if (numel != st.numel || numel > (bytes.size() - at) / size)
                throw Error(path + ": storage '" + k->text + "' is truncated or of another size than declared");
            st.bytes.assign(bytes, at, std::size_t(numel) * size);
            at += std::size_t(numel) * size;
        }
        for (const auto& [key, st] : ck.storages_)
            if (st.bytes.size() != st.numel * dtype_size(st.dtype))
                throw Error(path + ": storage '" + key + "' has no data");
    }
    check_storage_sizes(ck.storages_, ck.tensors_, path);
    if (ck.tensors_.empty()) throw Error(path + ": the checkpoint holds no tensors");
    return ck;
}

std::vector<std::string> TorchCheckpoint::names() const {
    std::vector<std::string> out;
    for (const auto& t : tensors_) out.push_back(t.first);
    return out;
}

Shape TorchCheckpoint::shape(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    return it->second.shape;
}

std::string TorchCheckpoint::dtype(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    return it->second.dtype;
}

FloatArray TorchCheckpoint::get(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    const Tensor& t = it->second;
    const Storage& st = storages_.at(t.storage);
    const std::size_t size = dtype_size(st.dtype);
    FloatArray out = FloatArray::from_shape(t.shape);
    const std::size_t n = out.size(), rank = t.shape.size();
    const auto* base = reinterpret_cast<const unsigned char*>(st.bytes.data());
    // Contiguous (the usual case): one conversion. Otherwise the view's elements are gathered
    // in row-major order first, following its strides.
    bool contiguous = true;
    for (std::size_t d = rank, expect = 1; d > 0; expect *= t.shape[d - 1], --d)
        if (t.shape[d - 1] > 1 && t.stride[d - 1] != expect) contiguous = false;
    std::string gathered;
    const unsigned char* src = base + t.offset * size;
    if (!contiguous && n > 0) {
        gathered.resize(n * size);
        std::vector<std::size_t> index(rank, 0);
        std::size_t element = t.offset;
        // element = offset + sum index[d]*stride[d] stays within the view (checked at open): it
        // steps forward inside a dimension and back to its start past the end, never wrapping.
        for (std::size_t i = 0; i < n; ++i) {
            std::memcpy(&gathered[i * size], base + element * size, size);
            for (std::size_t d = rank; d > 0; --d) {  // the last dimension varies fastest
                const std::size_t k = d - 1;
                if (++index[k] < t.shape[k]) {
                    element += t.stride[k];
                    break;
                }
                element -= (t.shape[k] - 1) * t.stride[k];
                index[k] = 0;
            }
        }
        src = reinterpret_cast<const unsigned char*>(gathered.data());
    }
    if (!decode_floats(out.data(), src, n, st.dtype))
        throw Error(path_ + ": tensor '" + name + "' has dtype " + st.dtype + " (expected F32, F16, BF16 or F64)");
    check_finite(out.data(), n, 0, t.shape, path_, name);
    return out;
}

}  // namespace tfm
