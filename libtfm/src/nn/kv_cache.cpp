#include "tfm/nn/kv_cache.hpp"

#include <algorithm>

#include "tfm/base/error.hpp"

namespace tfm {

KeyValueCache::KeyValueCache(std::size_t rows, std::size_t capacity, std::size_t d)
    : capacity_(capacity), d_(d), keys_(rows), values_(rows) {}

void KeyValueCache::append(ConstMat k, ConstMat v) {
    const std::size_t n = rows();
    if (k.rows != n || v.rows != n || k.cols != d_ || v.cols != d_)
        throw Error("key/value cache: " + std::to_string(k.rows) + " new keys for " + std::to_string(n) + " rows");
    if (length_ >= capacity_)
        throw Error("key/value cache: more than the " + std::to_string(capacity_) + " positions planned");
    for (std::size_t r = 0; r < n; ++r) {
        if (!keys_[r]) keys_[r].reset(new float[capacity_ * d_]), values_[r].reset(new float[capacity_ * d_]);
        std::copy(k.data + r * k.ld, k.data + r * k.ld + d_, keys_[r].get() + length_ * d_);
        std::copy(v.data + r * v.ld, v.data + r * v.ld + d_, values_[r].get() + length_ * d_);
    }
    ++length_;
}

ConstMat KeyValueCache::keys(std::size_t row) const { return mat(keys_[row].get(), length_, d_); }
ConstMat KeyValueCache::values(std::size_t row) const { return mat(values_[row].get(), length_, d_); }

void KeyValueCache::select(const std::vector<std::size_t>& rows) {
    const std::size_t n = this->rows();
    std::vector<std::size_t> uses(n, 0);
    for (std::size_t r : rows) {
        if (r >= n) throw Error("key/value cache: row " + std::to_string(r) + " of " + std::to_string(n));
        ++uses[r];
    }
    const std::size_t filled = length_ * d_;
    for (auto* part : {&keys_, &values_}) {
        // A row moves to its last new place; its other places get copies of the positions
        // stored, into the buffers of rows no longer used (in a beam, one for each) or new ones.
        std::vector<Buffer> spare;
        for (std::size_t r = 0; r < n; ++r)
            if (uses[r] == 0 && (*part)[r]) spare.push_back(std::move((*part)[r]));
        std::vector<std::size_t> left = uses;
        std::vector<Buffer> next(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            Buffer& old = (*part)[rows[i]];
            if (--left[rows[i]] == 0) {  // its last new place: moved, after the copies
                next[i] = std::move(old);
                continue;
            }
            if (!old) continue;  // nothing stored yet
            if (!spare.empty()) {
                next[i] = std::move(spare.back());
                spare.pop_back();
            } else {
                next[i].reset(new float[capacity_ * d_]);
            }
            std::copy(old.get(), old.get() + filled, next[i].get());
        }
        *part = std::move(next);
    }
}

}  // namespace tfm
