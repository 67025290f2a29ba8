#include "tfm/io/npz.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/npy.hpp"
#include "zip_archive.hpp"

namespace tfm {

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t(1) << 36;  // 64 GiB
constexpr std::size_t kMaxEntryBytes = std::size_t(1) << 36;

struct Entry {
    std::string member;  // the zip entry's name
    std::string dtype;
    Shape shape;
    std::size_t data_offset = 0, numel = 0;
};

std::string dtype_of(const std::string& descr, const std::string& where) {
    static const std::map<std::string, std::string> known = {
        {"<f4", "F32"}, {"<f2", "F16"}, {"<f8", "F64"}, {"<i4", "I32"}, {"<i8", "I64"}, {"|i1", "I8"},
        {"|u1", "U8"},  {"|b1", "BOOL"}, {"|S1", "U8"}, {"=f4", "F32"}, {"=f8", "F64"}};
    auto it = known.find(descr);
    if (it == known.end())
        throw Error(where + ": dtype '" + descr + "' is not supported (little-endian float32/16/64, int8/32/64, uint8, bool)");
    return it->second;
}

// The size of a .npy preamble (magic, version, length, dictionary) from its first 12 bytes.
std::size_t preamble_size(const std::string& head, const std::string& where) {
    if (head.size() < 10 || head.compare(0, kNpyMagic.size(), kNpyMagic) != 0)
        throw Error(where + ": not a .npy array (no \\x93NUMPY magic)");
    const unsigned major = static_cast<unsigned char>(head[6]);
    if (major < 1 || major > 3) throw Error(where + ": .npy version " + std::to_string(major) + " is not supported");
    const std::size_t len_bytes = major == 1 ? 2 : 4, start = 8 + len_bytes;
    if (head.size() < start) throw Error(where + ": truncated .npy header");
    std::size_t len = 0;
    for (std::size_t i = 0; i < len_bytes; ++i) len |= std::size_t(static_cast<unsigned char>(head[8 + i])) << (8 * i);
    if (len > kMaxNpyHeader) throw Error(where + ": .npy header of " + std::to_string(len) + " bytes is too large");
    return start + len;
}

// The header of one .npy entry (its preamble): its dictionary and where its data starts.
Entry parse_entry(const std::string& head, std::size_t entry_size, const std::string& where) {
    const std::size_t end = preamble_size(head, where);
    if (head.size() < end) throw Error(where + ": truncated .npy header");
    const std::size_t start = std::size_t(static_cast<unsigned char>(head[6])) == 1 ? 10 : 12, len = end - start;
    NpyDict d;
    try {
        d = parse_npy_dict(std::string_view(head).substr(start, len));
    } catch (const Error& e) {
        throw Error(where + ": " + e.what());
    }
    Entry e;
    e.dtype = dtype_of(d.descr, where);
    if (d.fortran_order && d.shape.size() > 1) throw Error(where + ": Fortran-order arrays are not supported");
    e.shape = d.shape;
    e.data_offset = start + len;
    std::size_t numel = 0;
    const std::size_t item = dtype_size(e.dtype);
    try {  // the non-zero dimensions are held to the limit even when another one is 0
        numel = checked_numel(e.shape, kMaxEntryBytes / item);
    } catch (const Error& err) {
        throw Error(where + ": " + err.what());
    }
    e.numel = numel;
    if (entry_size < e.data_offset || entry_size - e.data_offset != numel * item)
        throw Error(where + ": shape " + shape_str(e.shape) + " needs " + std::to_string(numel * item) +
                    " bytes of data, the entry holds " +
                    std::to_string(entry_size < e.data_offset ? 0 : entry_size - e.data_offset));
    return e;
}

}  // namespace

struct Npz::Impl {
    std::string path, bytes;
    std::unique_ptr<ZipArchive> zip;  // over bytes
    std::map<std::string, Entry> entries;

    const Entry& at(const std::string& name) const {
        auto it = entries.find(name);
        if (it == entries.end()) throw Error(path + ": no array '" + name + "'");
        return it->second;
    }
    // The entry's data (CRC checked), header cut off.
    std::string data(const Entry& e) const {
        std::string all = zip->read(e.member);
        return all.substr(e.data_offset);
    }
};

Npz::Npz() : impl_(std::make_unique<Impl>()) {}
Npz::Npz(Npz&&) noexcept = default;
Npz& Npz::operator=(Npz&&) noexcept = default;
Npz::~Npz() = default;

Npz Npz::open(const std::string& path) { return from_bytes(read_regular_file(path, kMaxFileBytes), path); }

Npz Npz::from_bytes(std::string bytes, const std::string& path) {
    Npz f;
    Impl& s = *f.impl_;
    s.path = path;
    s.bytes = std::move(bytes);
    if (!is_zip(s.bytes)) throw Error(path + ": not a .npz archive (not a zip file)");
    s.zip = std::make_unique<ZipArchive>(s.bytes, path);
    for (const std::string& member : s.zip->names()) {
        if (member.size() < 5 || member.compare(member.size() - 4, 4, ".npy") != 0)
            throw Error(path + ": entry '" + member + "' is not a .npy array");
        const std::string name = member.substr(0, member.size() - 4), where = path + ": array '" + name + "'";
        const std::size_t size = s.zip->size(member);
        // The preamble alone: its first 12 bytes say how long it is.
        const std::size_t preamble = preamble_size(s.zip->read_prefix(member, 12), where);
        Entry e = parse_entry(s.zip->read_prefix(member, preamble), size, where);
        e.member = member;
        if (!s.entries.emplace(name, std::move(e)).second) throw Error(where + " appears twice");
    }
    return f;
}

const std::string& Npz::path() const { return impl_->path; }
bool Npz::contains(const std::string& name) const { return impl_->entries.count(name) != 0; }

std::vector<std::string> Npz::names() const {
    std::vector<std::string> out;
    for (const auto& [name, e] : impl_->entries) out.push_back(name);
    return out;
}

Shape Npz::shape(const std::string& name) const { return impl_->at(name).shape; }
std::string Npz::dtype(const std::string& name) const { return impl_->at(name).dtype; }

FloatArray Npz::get(const std::string& name) const {
    const Entry& e = impl_->at(name);
    const std::string data = impl_->data(e);
    FloatArray out = FloatArray::from_shape(e.shape);
    if (!decode_floats(out.data(), reinterpret_cast<const unsigned char*>(data.data()), e.numel, e.dtype))
        throw Error(impl_->path + ": array '" + name + "' has dtype " + e.dtype + ", not a float type");
    check_finite(out.data(), e.numel, 0, e.shape, impl_->path, name);
    return out;
}

std::string Npz::text(const std::string& name) const {
    const Entry& e = impl_->at(name);
    if (e.dtype != "I8" && e.dtype != "U8")
        throw Error(impl_->path + ": array '" + name + "' has dtype " + e.dtype + ", not bytes of text");
    std::string t = impl_->data(e);
    while (!t.empty() && t.back() == '\0') t.pop_back();
    return t;
}

void save_npz(const std::string& path, const std::vector<NpzArray>& arrays) {
    std::vector<ZipEntry> entries;
    for (const NpzArray& a : arrays) {
        std::size_t numel = 1;
        for (std::size_t d : a.shape) numel *= d;
        if (a.dtype != "F32" && a.dtype != "I8") throw Error(path + ": array '" + a.name + "': dtype " + a.dtype);
        if (numel * dtype_size(a.dtype) != a.bytes.size())
            throw Error(path + ": array '" + a.name + "' of shape " + shape_str(a.shape) + " has " +
                        std::to_string(a.bytes.size()) + " bytes");
        std::string preamble = npy_preamble(DType::F32, a.shape);
        if (a.dtype == "I8") {  // the same dictionary with the byte dtype
            const std::size_t at = preamble.find("'<f4'");
            preamble.replace(at, 5, "'|i1'");
        }
        entries.push_back({a.name + ".npy", preamble + a.bytes});
    }
    write_file_atomic(path, write_zip(entries, path));
}

}  // namespace tfm
