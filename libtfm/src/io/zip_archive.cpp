#include "zip_archive.hpp"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "tfm/base/checked.hpp"
#include "tfm/base/error.hpp"

namespace tfm {

namespace {

std::string zip_message(zip_error_t* e) {
    std::string m = zip_error_strerror(e);
    zip_error_fini(e);
    return m;
}

}  // namespace

bool is_zip(const std::string& b) { return b.size() >= 4 && b.compare(0, 4, "PK\x03\x04", 4) == 0; }

std::size_t zip_expansion_budget(std::size_t archive_bytes) {
    constexpr std::size_t kFloor = std::size_t(64) << 20, kCeiling = std::size_t(64) << 30;
    std::size_t ratio = 16;
    if (const char* env = std::getenv("TFM_ZIP_RATIO"); env && *env) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(env, &end, 10);
        if (errno || !end || *end || v == 0 || env[0] == '-')
            throw UsageError("TFM_ZIP_RATIO='" + std::string(env) + "' is not a positive integer");
        ratio = std::size_t(std::min<unsigned long long>(v, kCeiling));
    }
    std::size_t budget = 0;
    if (!checked::mul(ratio, archive_bytes, &budget)) budget = kCeiling;
    return std::clamp(budget, kFloor, kCeiling);
}

ZipArchive::ZipArchive(const std::string& bytes, const std::string& path)
    : budget_(zip_expansion_budget(bytes.size())), archive_bytes_(bytes.size()), path_(path) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) throw Error(path + ": " + zip_message(&err));
    z_ = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!z_) {
        zip_source_free(src);
        throw Error(path + ": not a readable zip archive: " + zip_message(&err));
    }
    zip_error_fini(&err);
}

ZipArchive::~ZipArchive() { zip_discard(z_); }

std::vector<std::string> ZipArchive::names() const {
    std::vector<std::string> out;
    const zip_int64_t n = zip_get_num_entries(z_, 0);
    for (zip_int64_t i = 0; i < n; ++i)
        if (const char* name = zip_get_name(z_, zip_uint64_t(i), 0)) out.push_back(name);
    return out;
}

std::size_t ZipArchive::size(const std::string& name) const {
    zip_stat_t st;
    if (zip_stat(z_, name.c_str(), 0, &st) != 0) throw Error(path_ + ": '" + name + "' is missing from the archive");
    const zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    const bool stored = (st.valid & need) == need && st.comp_method == ZIP_CM_STORE;
    const bool fits = (st.valid & need) == need &&
                      (stored ? st.size == st.comp_size : st.size / 1032 <= st.comp_size);
    if (!fits)
        throw Error(path_ + ": zip entry '" + name + "' claims " + std::to_string(st.size) + " bytes, more than it can hold");
    if (st.size > budget_)
        throw Error(path_ + ": zip entry '" + name + "' expands to " + std::to_string(st.size) + " bytes, more than the " +
                    std::to_string(budget_) + " left of what a " + std::to_string(archive_bytes_) +
                    "-byte archive may expand to (TFM_ZIP_RATIO times its size, at least 64 MiB; raise TFM_ZIP_RATIO to allow it)");
    return std::size_t(st.size);
}

std::string ZipArchive::read_prefix(const std::string& name, std::size_t n) const {
    std::string data(std::min(n, size(name)), '\0');
    zip_file_t* f = zip_fopen(z_, name.c_str(), 0);
    if (!f) throw Error(path_ + ": zip entry '" + name + "': " + zip_strerror(z_));
    const zip_int64_t got = zip_fread(f, data.data(), data.size());
    const std::string why = got < 0 ? zip_file_strerror(f) : "";
    zip_fclose(f);
    if (got < 0 || zip_uint64_t(got) != data.size())
        throw Error(path_ + ": zip entry '" + name + "': " + (why.empty() ? "truncated" : why));
    return data;
}

std::string ZipArchive::read(const std::string& name, std::size_t expected) {
    const std::size_t n = size(name);
    if (expected != SIZE_MAX && n != expected)
        throw Error(path_ + ": zip entry '" + name + "' holds " + std::to_string(n) + " bytes, " +
                    std::to_string(expected) + " expected");
    std::string data(n, '\0');
    zip_file_t* f = zip_fopen(z_, name.c_str(), 0);
    if (!f) throw Error(path_ + ": zip entry '" + name + "': " + zip_strerror(z_));
    zip_int64_t got = zip_fread(f, data.data(), n);
    char extra;
    // Reading on to the end is what makes libzip compare the entry's CRC.
    if (got >= 0 && zip_uint64_t(got) == n && zip_fread(f, &extra, 1) != 0) got = -1;
    const std::string why = got < 0 ? zip_file_strerror(f) : "";
    zip_fclose(f);
    if (got < 0 || zip_uint64_t(got) != n)
        throw Error(path_ + ": zip entry '" + name + "': " + (why.empty() ? "truncated" : why));
    budget_ -= n;  // n <= budget_ (size)
    return data;
}

std::string write_zip(const std::vector<ZipEntry>& entries, const std::string& what) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!out) throw Error(what + ": " + zip_message(&err));
    zip_t* z = zip_open_from_source(out, ZIP_TRUNCATE, &err);
    if (!z) {
        zip_source_free(out);
        throw Error(what + ": " + zip_message(&err));
    }
    zip_error_fini(&err);
    zip_source_keep(out);  // the bytes are read back after zip_close
    std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> keep(out, zip_source_free);
    for (const ZipEntry& e : entries) {
        zip_source_t* src = zip_source_buffer(z, e.bytes.data(), e.bytes.size(), 0);
        const zip_int64_t i = src ? zip_file_add(z, e.name.c_str(), src, ZIP_FL_ENC_UTF_8) : -1;
        if (i < 0) {
            if (src) zip_source_free(src);
            const std::string m = zip_strerror(z);
            zip_discard(z);
            throw Error(what + ": cannot add '" + e.name + "': " + m);
        }
        zip_set_file_compression(z, zip_uint64_t(i), ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) {
        const std::string m = zip_strerror(z);
        zip_discard(z);
        throw Error(what + ": " + m);
    }
    zip_stat_t st;
    if (zip_source_stat(out, &st) != 0 || zip_source_open(out) != 0) throw Error(what + ": cannot read the archive back");
    std::string bytes(std::size_t(st.size), '\0');
    const zip_int64_t got = zip_source_read(out, bytes.data(), st.size);
    zip_source_close(out);
    if (got < 0 || zip_uint64_t(got) != st.size) throw Error(what + ": cannot read the archive back");
    return bytes;
}

}  // namespace tfm
