// The keys and values of the positions decoded so far, per row (hypothesis) of a batch: what
// a decoding step's self-attention attends to besides its own new position.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tfm/base/gemm.hpp"

namespace tfm {

class KeyValueCache {
public:
    // rows hypotheses of width d (key and value columns), at most capacity positions each.
    KeyValueCache(std::size_t rows, std::size_t capacity, std::size_t d);

    std::size_t rows() const { return keys_.size(); }
    std::size_t length() const { return length_; }  // positions stored in every row

    // One new position for every row: k [rows,D] and v [rows,D] (views; copied in).
    void append(ConstMat k, ConstMat v);
    ConstMat keys(std::size_t row) const;    // [length,D]
    ConstMat values(std::size_t row) const;  // [length,D]

    // Row i of the result is row rows[i] of this cache (rows may repeat or drop rows): a row
    // moves to its last new place and is copied to the others.
    void select(const std::vector<std::size_t>& rows);

private:
    // Per row [capacity,D], allocated on first use and left uninitialised: only the positions
    // stored are ever written or read, so the pages past them are never touched.
    using Buffer = std::unique_ptr<float[]>;
    std::size_t capacity_, d_, length_ = 0;
    std::vector<Buffer> keys_, values_;
};

}  // namespace tfm
