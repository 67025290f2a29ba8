#include "craft_checkpoint.hpp"

#include <zip.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace tfm_craft {

namespace {

// A protocol-2 pickle written opcode by opcode, as Python's pickler writes these objects.
class Pickle {
public:
    Pickle() { out_ += "\x80\x02"; }
    Pickle& global(const std::string& module, const std::string& name) {
        out_ += 'c' + module + '\n' + name + '\n';
        return *this;
    }
    Pickle& op(char c) {
        out_ += c;
        return *this;
    }
    Pickle& text(const std::string& s) {
        out_ += 'X';
        le(s.size(), 4);
        out_ += s;
        return *this;
    }
    Pickle& integer(std::int64_t v) {  // LONG1 of 8 bytes, two's complement
        out_ += '\x8a';
        out_ += '\x08';
        le(std::uint64_t(v), 8);
        return *this;
    }
    Pickle& raw(const std::string& bytes) {
        out_ += bytes;
        return *this;
    }
    Pickle& ordered_dict() { return global("collections", "OrderedDict").op(')').op('R'); }
    std::string done() { return out_ + '.'; }

private:
    void le(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_ += char((v >> (8 * i)) & 0xff);
    }
    std::string out_;
};

void write_tensor(Pickle& p, const Checkpoint& ck, const Tensor& t) {
    if (t.as_parameter) p.global("torch._utils", "_rebuild_parameter").op('(');
    p.global("torch._utils", "_rebuild_tensor_v2").op('(');
    const Storage& st = ck.storages.at(t.storage);
    p.op('(').text("storage").global("torch", st.type).text(st.key).text("cpu").integer(st.numel);
    if (ck.legacy) {
        if (t.has_view) p.op('(').text(t.view.key).integer(t.view.offset).integer(t.view.size).op('t');
        else p.op('N');
    }
    p.op('t').op('Q');
    p.integer(t.offset);
    p.op('(');
    for (std::int64_t d : t.shape) p.integer(d);
    p.op('t').op('(');
    for (std::int64_t s : t.stride) p.integer(s);
    p.op('t').op('\x89').ordered_dict().op('t').op('R');
    if (t.as_parameter) p.op('\x89').ordered_dict().op('t').op('R');
}

std::string state_dict(const Checkpoint& ck) {
    Pickle p;
    p.ordered_dict().op('(');
    for (const Tensor& t : ck.tensors) {
        p.text(t.name);
        write_tensor(p, ck, t);
    }
    return p.op('u').done();
}

struct ZipEntry {
    std::string name, bytes;
    bool deflate;
};

std::string zip_bytes(const std::vector<ZipEntry>& entries) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
    zip_t* z = out ? zip_open_from_source(out, ZIP_TRUNCATE, &err) : nullptr;
    if (!z) throw std::runtime_error("craft: cannot open a zip in memory");
    zip_source_keep(out);
    std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> keep(out, zip_source_free);
    for (const ZipEntry& e : entries) {
        zip_source_t* src = zip_source_buffer(z, e.bytes.data(), e.bytes.size(), 0);
        const zip_int64_t i = src ? zip_file_add(z, e.name.c_str(), src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE) : -1;
        if (i < 0) throw std::runtime_error("craft: cannot add " + e.name);
        zip_set_file_compression(z, zip_uint64_t(i), e.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) throw std::runtime_error("craft: cannot write the zip");
    zip_stat_t st;
    if (zip_source_stat(out, &st) != 0 || zip_source_open(out) != 0) throw std::runtime_error("craft: zip read back");
    std::string bytes(std::size_t(st.size), '\0');
    zip_source_read(out, bytes.data(), st.size);
    zip_source_close(out);
    return bytes;
}

}  // namespace

std::string torch_bytes(const Checkpoint& ck) {
    if (!ck.legacy) {
        std::vector<ZipEntry> entries{{"archive/data.pkl", state_dict(ck), ck.deflate}};
        for (const Storage& st : ck.storages) entries.push_back({"archive/data/" + st.key, st.bytes, ck.deflate});
        entries.push_back({"archive/version", "3\n", false});
        return zip_bytes(entries);
    }
    std::string out;
    out += Pickle().raw(std::string("\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 12)).done();  // magic number
    out += Pickle().raw("M\xe9\x03").done();                                                           // 1001
    out += Pickle().op('}').op('(').text("little_endian").op('\x88').op('u').done();
    out += state_dict(ck);
    Pickle keys;
    keys.op(']').op('(');
    for (const Storage& st : ck.storages) keys.text(st.key);
    out += keys.op('e').done();
    for (const Storage& st : ck.storages) {
        const std::uint64_t n = std::uint64_t(st.stored_numel >= 0 ? st.stored_numel : st.numel);
        for (int i = 0; i < 8; ++i) out += char((n >> (8 * i)) & 0xff);
        out += st.bytes;
    }
    return out;
}

std::string npz_bytes(const std::vector<NpyEntry>& entries) {
    std::vector<ZipEntry> zipped;
    for (const NpyEntry& e : entries) {
        std::string b = "\x93NUMPY";
        b += char(e.version);
        b += '\0';
        const std::size_t n = e.header.size();
        const int len_bytes = e.version == 1 ? 2 : 4;
        for (int i = 0; i < len_bytes; ++i) b += char((n >> (8 * i)) & 0xff);
        zipped.push_back({e.member, b + e.header + e.data, e.deflate});
    }
    return zip_bytes(zipped);
}

std::string float_bytes(const std::vector<float>& v) {
    std::string b(v.size() * 4, '\0');
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
}

}  // namespace tfm_craft
