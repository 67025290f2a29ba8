#include "tfm/base/tensor.hpp"

#include <cmath>

#include "tfm/base/error.hpp"

namespace tfm {

std::string shape_str(const Shape& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

FloatArray as_float(Record record) {
    if (auto* f = std::get_if<FloatArray>(&record)) return std::move(*f);
    const IdArray& ids = std::get<IdArray>(record);
    FloatArray out = FloatArray::from_shape(ids.shape());
    for (std::size_t i = 0; i < ids.size(); ++i) out.data()[i] = static_cast<float>(ids.data()[i]);
    return out;
}

IdArray as_ids(Record record) {
    if (auto* ids = std::get_if<IdArray>(&record)) return std::move(*ids);
    const FloatArray& f = std::get<FloatArray>(record);
    IdArray out = IdArray::from_shape(f.shape());
    for (std::size_t i = 0; i < f.size(); ++i) {
        float v = f.data()[i];
        if (!(std::floor(v) == v) || std::fabs(v) > 9.0e15f)
            throw Error("expected integer ids, found " + std::to_string(v));
        out.data()[i] = static_cast<std::int64_t>(v);
    }
    return out;
}

std::size_t checked_numel(const Shape& shape, std::size_t limit) {
    // The non-zero dimensions must fit too: a [0, 10^16, 10^16] tensor holds nothing, but its
    // strides would overflow (found by fuzzing).
    std::size_t n = 1;
    bool empty = false;
    for (std::size_t d : shape) {
        if (d == 0) {
            empty = true;
            continue;
        }
        if (n > limit / d)
            throw Error("shape " + shape_str(shape) + " has more than " + std::to_string(limit) +
                        " elements");
        n *= d;
    }
    return empty ? 0 : n;
}

}  // namespace tfm
