// Overflow-checked size arithmetic for the readers of files from strangers: every size, offset
// and stride a file states goes through these before it becomes an allocation or a pointer.
// Each returns false (leaving *out unspecified) where the exact result does not fit a size_t;
// callers turn that into an Error that names the file and the field. docs/design.md
// ("Hostile files") lists the rules the readers follow.
#pragma once

#include <cstddef>

namespace tfm::checked {

// *out = a + b, false on overflow.
inline bool add(std::size_t a, std::size_t b, std::size_t* out) { return !__builtin_add_overflow(a, b, out); }

// *out = a * b, false on overflow.
inline bool mul(std::size_t a, std::size_t b, std::size_t* out) { return !__builtin_mul_overflow(a, b, out); }

// *out = a * b + c, false on overflow.
inline bool mul_add(std::size_t a, std::size_t b, std::size_t c, std::size_t* out) {
    std::size_t p = 0;
    return mul(a, b, &p) && add(p, c, out);
}

// Whether [offset, offset + count) lies inside [0, total): offset <= total and
// count <= total - offset, proven without forming offset + count.
inline bool span_fits(std::size_t offset, std::size_t count, std::size_t total) {
    return offset <= total && count <= total - offset;
}

}  // namespace tfm::checked
