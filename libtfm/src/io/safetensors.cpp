#include "tfm/io/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <cmath>

#include <nlohmann/json.hpp>

#include "tfm/base/bfloat16.hpp"
#include "tfm/base/checked.hpp"
#include "tfm/base/half.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/quantize.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/io/npy.hpp"

namespace tfm {

namespace {

constexpr std::size_t kMaxHeader = std::size_t(100) << 20;


class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

}  // namespace

SafeTensors SafeTensors::open(const std::string& path) {
    SafeTensors st;
    st.path_ = path;
    auto bad = [&](const std::string& what) { return Error(path + ": " + what); };
    Fd fd(open_regular_file(path));
    struct stat sb {};
    if (fstat(fd.get(), &sb) != 0 || !S_ISREG(sb.st_mode)) throw bad("not a regular file");
    std::size_t size = std::size_t(sb.st_size);
    if (size < 8) throw bad("too short for a safetensors file (" + std::to_string(size) + " bytes)");
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (m == MAP_FAILED) throw bad(std::string("cannot map: ") + std::strerror(errno));
    st.map_ = static_cast<const unsigned char*>(m);
    st.size_ = size;

    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | st.map_[i];
    if (n > kMaxHeader || n > size - 8)
        throw bad("header length " + std::to_string(n) + " exceeds the file or the limit");
    st.data_start_ = 8 + std::size_t(n);
    const std::size_t data_size = size - st.data_start_;
    const Json header =
        parse_json(std::string_view(reinterpret_cast<const char*>(st.map_) + 8, std::size_t(n)), path + ": header");
    if (!header.is_object()) throw bad("header is not a JSON object");
    for (auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) throw bad("__metadata__ is not an object");
            for (auto& [k, v] : entry.items())
                st.metadata_[k] = v.is_string() ? v.get<std::string>() : json_excerpt(v);
            continue;
        }
        const std::string quoted = json_excerpt(name);  // "name", cut short, control characters replaced
        const std::string where = "tensor '" + quoted.substr(1, quoted.size() - 2) + "': ";
        if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
            !entry.contains("data_offsets"))
            throw bad(where + "needs dtype, shape and data_offsets");
        TensorInfo info;
        const auto& dt = entry["dtype"];
        const auto& shape = entry["shape"];
        const auto& off = entry["data_offsets"];
        if (!dt.is_string()) throw bad(where + "dtype is not a string");
        info.dtype = dt.get<std::string>();
        // Every dtype the format defines opens (a tensor tfm cannot compute with is refused, by
        // name, only when it is read); an unknown one is an error now.
        const std::size_t bits = dtype_bits(info.dtype);
        if (bits == 0) throw bad(where + "unknown dtype " + info.dtype);
        if (!shape.is_array()) throw bad(where + "shape is not an array");
        for (const auto& d : shape) {
            if (!d.is_number_unsigned()) throw bad(where + "shape has a non-integer dimension");
            info.shape.push_back(d.get<std::size_t>());
        }
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
            !off[1].is_number_unsigned())
            throw bad(where + "data_offsets must be two non-negative integers");
        info.begin = off[0].get<std::size_t>();
        info.end = off[1].get<std::size_t>();
        if (info.begin > info.end || info.end > data_size)
            throw bad(where + "data_offsets [" + std::to_string(info.begin) + "," +
                      std::to_string(info.end) + "] lie outside the " + std::to_string(data_size) +
                      " data bytes");
        std::size_t numel = 0;
        try {
            // Held to 2^40 elements (or the data size, if larger) so that numel x itemsize cannot
            // overflow and an empty tensor's strides fit; the byte count below then settles it.
            numel = checked_numel(info.shape, std::max(data_size, std::size_t(1) << 40));
        } catch (const Error& e) {
            throw bad(where + e.what());
        }
        std::size_t total_bits = 0;
        if (!checked::mul(numel, bits, &total_bits) || total_bits % 8 != 0)
            throw bad(where + "shape " + shape_str(info.shape) + " of " + info.dtype + " is not a whole number of bytes");
        if (total_bits / 8 != info.end - info.begin)
            throw bad(where + "shape " + shape_str(info.shape) + " of " + info.dtype + " needs " +
                      std::to_string(total_bits / 8) + " bytes, data_offsets give " +
                      std::to_string(info.end - info.begin));
        st.infos_.emplace(name, std::move(info));
    }
    // Offsets must tile the data section exactly: no gaps, no overlaps.
    std::vector<const TensorInfo*> order;
    for (auto& [name, info] : st.infos_) order.push_back(&info);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::size_t at = 0;
    for (auto* info : order) {
        if (info->begin != at) throw bad("tensor data are not contiguous (gap or overlap at byte " +
                                         std::to_string(at) + ")");
        at = info->end;
    }
    if (at != data_size)
        throw bad("data section has " + std::to_string(data_size - at) + " bytes no tensor uses");
    // An I8 tensor is a matrix stored a row at a time with a float scale per row beside it.
    for (auto& [name, info] : st.infos_) {
        if (info.dtype != "I8") continue;
        const std::string scales = name + kScaleSuffix;
        auto it = st.infos_.find(scales);
        if (info.shape.size() != 2)
            throw bad("tensor '" + name + "': I8 tensors must be matrices (a scale per row), not shape " + shape_str(info.shape));
        if (it == st.infos_.end())
            throw bad("tensor '" + name + "': I8 without its row scales '" + scales + "'");
        if (it->second.shape != Shape{info.shape[0]} || (it->second.dtype != "F32" && it->second.dtype != "F16" &&
                                                          it->second.dtype != "BF16" && it->second.dtype != "F64"))
            throw bad("tensor '" + scales + "': the row scales of an I8 " + shape_str(info.shape) + " matrix must be " +
                      shape_str({info.shape[0]}) + " floats, not " + it->second.dtype + " " + shape_str(it->second.shape));
    }
    return st;
}

SafeTensors::SafeTensors(SafeTensors&& o) noexcept { *this = std::move(o); }

SafeTensors& SafeTensors::operator=(SafeTensors&& o) noexcept {
    if (this != &o) {
        if (map_) ::munmap(const_cast<unsigned char*>(map_), size_);
        path_ = std::move(o.path_);
        map_ = std::exchange(o.map_, nullptr);
        size_ = std::exchange(o.size_, 0);
        data_start_ = o.data_start_;
        infos_ = std::move(o.infos_);
        metadata_ = std::move(o.metadata_);
    }
    return *this;
}

SafeTensors::~SafeTensors() {
    if (map_) ::munmap(const_cast<unsigned char*>(map_), size_);
}

FloatArray SafeTensors::get(const std::string& name) const {
    auto it = infos_.find(name);
    if (it == infos_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    FloatArray out = FloatArray::from_shape(it->second.shape);
    read_into(name, out.data());
    return out;
}

namespace {

// Gives back the whole pages of the mapping within [at, at+bytes): a tensor's values once
// copied out, so that loading a model holds about one copy of the weights, not the mapped
// file as well (a later read of them faults them in from the file again).
void release_pages(const unsigned char* at, std::size_t bytes) {
    const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t first = (std::uintptr_t(at) + page - 1) / page * page,
                         last = (std::uintptr_t(at) + bytes) / page * page;
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

void SafeTensors::decode(const std::string& name, const TensorInfo& info, std::size_t first, std::size_t n,
                         float* out) const {
    const std::size_t item = dtype_size(info.dtype);
    const unsigned char* at = map_ + data_start_ + info.begin + first * item;
    if (item == 0 || !decode_floats(out, at, n, info.dtype))
        throw Error(path_ + ": tensor '" + name + "' has dtype " + info.dtype + " (expected F32, F16, BF16, F64 or I8)");
    release_pages(at, n * dtype_size(info.dtype));
    check_finite(out, n, first, info.shape, path_, name);
}

void SafeTensors::read_into(const std::string& name, float* out) const {
    auto it = infos_.find(name);
    if (it == infos_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    const TensorInfo& info = it->second;
    if (info.shape.size() >= 2) return read_rows(name, 0, info.shape[0], out);
    decode(name, info, 0, checked_numel(info.shape, SIZE_MAX / 8), out);  // I8 is never a vector (checked at open)
}

void SafeTensors::read_rows(const std::string& name, std::size_t row0, std::size_t rows, float* out) const {
    auto it = infos_.find(name);
    if (it == infos_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    const TensorInfo& info = it->second;
    const std::size_t width = checked_row_size(name, row0, rows);
    if (info.dtype != "I8") return decode(name, info, row0 * width, rows * width, out);
    // Rows of int8 times their scales (present and float, checked at open): the rows' own scales.
    const std::string scale_name = name + kScaleSuffix;
    std::vector<float> scales(rows);
    decode(scale_name, infos_.at(scale_name), row0, rows, scales.data());
    const auto* q = reinterpret_cast<const std::int8_t*>(map_ + data_start_ + info.begin) + row0 * width;
    for (std::size_t r = 0; r < rows; ++r) {
        if (!std::isfinite(scales[r]))
            throw Error(path_ + ": tensor '" + name + "': the scale of row " + std::to_string(row0 + r) + " is not finite");
        dequantize_row_int8(out + r * width, q + r * width, width, scales[r]);
    }
    release_pages(reinterpret_cast<const unsigned char*>(q), rows * width);
}

std::vector<std::string> SafeTensors::names() const {
    std::vector<std::string> out;
    for (const auto& t : infos_) out.push_back(t.first);
    return out;
}

Shape SafeTensors::shape(const std::string& name) const {
    auto it = infos_.find(name);
    if (it == infos_.end()) throw Error(path_ + ": missing tensor '" + name + "'");
    return it->second.shape;
}

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata, const std::string& dtype) {
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16" && dtype != "I8")
        throw Error(path + ": cannot write dtype " + dtype + " (F32, F16, BF16 or I8)");
    // I8: the tensors marked int8_rows as int8 rows plus their scales, the rest as F32.
    auto int8 = [&](const NamedTensor& t) { return dtype == "I8" && t.int8_rows && t.shape.size() == 2; };
    auto type_of = [&](const NamedTensor& t) { return int8(t) ? std::string("I8") : dtype == "I8" ? std::string("F32") : dtype; };
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::size_t at = 0;
    for (const auto& t : tensors) {
        const std::string type = type_of(t);
        std::size_t bytes = checked_numel(t.shape, SIZE_MAX / 8) * dtype_size(type);
        header[t.name] = {{"dtype", type}, {"shape", t.shape}, {"data_offsets", {at, at + bytes}}};
        at += bytes;
        if (int8(t)) {  // the scales follow their matrix
            header[t.name + kScaleSuffix] = {{"dtype", "F32"}, {"shape", {t.shape[0]}}, {"data_offsets", {at, at + 4 * t.shape[0]}}};
            at += 4 * t.shape[0];
        }
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string tmp = path + ".tmp.XXXXXX";
    int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw Error(path + ": cannot create temporary file: " + std::strerror(errno));
    auto discard = [&] {
        ::close(fd);
        ::unlink(tmp.c_str());
    };
    auto fail = [&](const std::string& what) {
        int e = errno;
        discard();
        return Error(path + ": " + what + ": " + std::strerror(e));
    };
    auto put = [&](const void* p, std::size_t n) {
        const char* c = static_cast<const char*>(p);
        while (n > 0) {
            ssize_t w = ::write(fd, c, n);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) throw fail("write failed");
            c += w;
            n -= std::size_t(w);
        }
    };
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    put(len, 8);
    put(text.data(), text.size());
    std::vector<std::uint8_t> buf;
    for (const auto& t : tensors) {
        const std::size_t n = checked_numel(t.shape, SIZE_MAX / 8);
        const std::string type = type_of(t);
        try {
            check_finite(t.data, n, 0, t.shape, path, t.name);
        } catch (const Error&) {
            discard();
            throw;
        }
        if (int8(t)) {
            const std::size_t rows = t.shape[0], cols = t.shape[1];
            std::vector<float> scales(rows);
            buf.resize(cols);
            for (std::size_t r = 0; r < rows; ++r) {
                scales[r] = quantize_row_int8(reinterpret_cast<std::int8_t*>(buf.data()), t.data + r * cols, cols);
                if (std::isnan(scales[r])) {
                    discard();
                    throw Error(path + ": tensor '" + t.name + "': row " + std::to_string(r) +
                                " holds NaN or Inf, which int8 cannot hold");
                }
                put(buf.data(), cols);
            }
            put(scales.data(), 4 * rows);  // little-endian hosts, as F32 below
            continue;
        }
        if (type == "F32") {
            put(t.data, n * 4);
            continue;
        }
        for (std::size_t i0 = 0; i0 < n; i0 += 65536) {  // converted in chunks
            const std::size_t m = std::min<std::size_t>(65536, n - i0);
            buf.resize(2 * m);
            for (std::size_t i = 0; i < m; ++i) {
                const std::uint16_t h = type == "F16" ? float_to_half(t.data[i0 + i]) : bfloat16_bits(t.data[i0 + i]);
                if ((h & 0x7fff) == (type == "F16" ? 0x7c00 : 0x7f80)) {  // a finite value rounded to Inf
                    discard();
                    throw Error(path + ": tensor '" + t.name + "' holds " + std::to_string(t.data[i0 + i]) + " at " +
                                index_str(i0 + i, t.shape) + ", outside what " + type + " holds (largest " +
                                (type == "F16" ? "65504" : "3.39e38") + ")");
                }
                buf[2 * i] = std::uint8_t(h & 0xff);
                buf[2 * i + 1] = std::uint8_t(h >> 8);
            }
            put(buf.data(), buf.size());
        }
    }
    if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) throw fail("cannot sync");
    if (::close(fd) != 0) {
        ::unlink(tmp.c_str());
        throw Error(path + ": close failed: " + std::strerror(errno));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw Error(path + ": cannot rename into place: " + std::strerror(e));
    }
}

}  // namespace tfm
