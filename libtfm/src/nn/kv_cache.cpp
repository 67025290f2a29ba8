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
        std::vector<float>& ck = keys_[r];
        std::vector<float>& cv = values_[r];
        if (ck.size() < capacity_ * d_) ck.resize(capacity_ * d_), cv.resize(capacity_ * d_);
        std::copy(k.data + r * k.ld, k.data + r * k.ld + d_, ck.begin() + long(length_ * d_));
        std::copy(v.data + r * v.ld, v.data + r * v.ld + d_, cv.begin() + long(length_ * d_));
    }
    ++length_;
}

ConstMat KeyValueCache::keys(std::size_t row) const { return mat(keys_[row].data(), length_, d_); }
ConstMat KeyValueCache::values(std::size_t row) const { return mat(values_[row].data(), length_, d_); }

void KeyValueCache::select(const std::vector<std::size_t>& rows) {
    const std::size_t n = this->rows();
    std::vector<std::size_t> uses(n, 0);
    for (std::size_t r : rows) {
        if (r >= n) throw Error("key/value cache: row " + std::to_string(r) + " of " + std::to_string(n));
        ++uses[r];
    }
    const std::size_t filled = length_ * d_;
    for (auto* part : {&keys_, &values_}) {
        // The buffers of rows no longer used take the copies of rows used twice or more (in a
        // beam, one for each): a copy is then `filled` floats into a buffer of full capacity,
        // with no allocation, no zero-filling and no growing later.
        std::vector<std::vector<float>> spare;
        for (std::size_t r = 0; r < n; ++r)
            if (uses[r] == 0 && !(*part)[r].empty()) spare.push_back(std::move((*part)[r]));
        std::vector<std::size_t> left = uses;
        std::vector<std::vector<float>> next(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            std::vector<float>& old = (*part)[rows[i]];
            if (--left[rows[i]] == 0) {  // its last new place: moved, after the copies
                next[i] = std::move(old);
                continue;
            }
            if (!spare.empty()) {
                next[i] = std::move(spare.back());
                spare.pop_back();
            }
            if (next[i].size() < std::max(filled, old.size())) next[i].resize(std::max(filled, old.size()));
            std::copy(old.begin(), old.begin() + long(std::min(old.size(), filled)), next[i].begin());
        }
        *part = std::move(next);
    }
}

}  // namespace tfm
