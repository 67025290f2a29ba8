// Zip archives in memory through libzip, for the readers of zip-based formats (PyTorch
// checkpoints, NumPy .npz) and the .npz writer. Private to the io tier.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

typedef struct zip zip_t;

namespace tfm {

bool is_zip(const std::string& bytes);  // starts with a local file header

// Entries are read one at a time, by name, and only after their size is checked, so no zip
// bomb gets allocated: no entry may claim more than its compressed bytes can expand to
// (deflate stays under 1032:1; a stored entry is its compressed size), and all the entries
// read from one archive together may not expand past a budget tied to the archive's size
// (zip_expansion_budget). Reading an entry to its end makes libzip check its CRC. Errors name
// the archive and the entry.
class ZipArchive {
public:
    // bytes must outlive the archive.
    ZipArchive(const std::string& bytes, const std::string& path);
    ~ZipArchive();
    ZipArchive(const ZipArchive&) = delete;
    ZipArchive& operator=(const ZipArchive&) = delete;

    std::vector<std::string> names() const;
    // Uncompressed size the archive states for an entry (throws when missing).
    std::size_t size(const std::string& name) const;
    // The first n bytes of an entry (fewer when it is shorter); no CRC check.
    std::string read_prefix(const std::string& name, std::size_t n) const;
    // The entry's bytes; `expected` (when not SIZE_MAX) is the size it must have. What it
    // expands to is taken from the archive's budget.
    std::string read(const std::string& name, std::size_t expected = SIZE_MAX);
    // Bytes the entries may still expand to.
    std::size_t budget() const { return budget_; }

private:
    zip_t* z_ = nullptr;
    std::size_t budget_, archive_bytes_;
    std::string path_;
};

// The bytes all entries of an archive of `archive_bytes` may expand to: TFM_ZIP_RATIO (default
// 16) times its size, at least 64 MiB, at most 64 GiB. Throws UsageError for a TFM_ZIP_RATIO
// that is not a positive integer.
std::size_t zip_expansion_budget(std::size_t archive_bytes);

// A zip archive of stored (uncompressed) entries, in order, as bytes.
struct ZipEntry {
    std::string name;
    std::string bytes;
};
std::string write_zip(const std::vector<ZipEntry>& entries, const std::string& what);

}  // namespace tfm
