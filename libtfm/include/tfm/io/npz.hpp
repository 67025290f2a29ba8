// NumPy .npz archives: a zip of NAME.npy entries (numpy.savez stores them, savez_compressed
// deflates them); how Marian saves its models. Entries are checked when the archive is
// opened (header, dtype, shape against the entry's size) and read, CRC-checked and converted
// one at a time when asked for, so a model is never held twice over.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tfm/io/tensor_file.hpp"

namespace tfm {

class Npz : public TensorFile {
public:
    // Throws Error naming the file (and the entry) and what is wrong.
    static Npz open(const std::string& path);
    static Npz from_bytes(std::string bytes, const std::string& path);
    Npz(Npz&&) noexcept;
    Npz& operator=(Npz&&) noexcept;
    ~Npz() override;

    const std::string& path() const override;
    bool contains(const std::string& name) const override;
    std::vector<std::string> names() const override;  // without ".npy", sorted
    Shape shape(const std::string& name) const override;
    FloatArray get(const std::string& name) const override;  // F32, F16, F64 -> float32
    using TensorFile::get;
    std::string dtype(const std::string& name) const;       // F32, F16, F64, I8, U8, I32, I64, BOOL
    // A one-byte array as text (Marian's "special:model.yml"); trailing NULs dropped.
    std::string text(const std::string& name) const;

private:
    Npz();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One array of an archive to write: dtype F32 or I8, little-endian C-order bytes.
struct NpzArray {
    std::string name;  // without ".npy"
    std::string dtype;
    Shape shape;
    std::string bytes;
};
// The .npz archive (entries stored, in the given order) written atomically to path.
void save_npz(const std::string& path, const std::vector<NpzArray>& arrays);

}  // namespace tfm
