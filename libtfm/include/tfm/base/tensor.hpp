// The values that travel between tools: one record of a tensor stream is either a float
// tensor (activations; float64 input is converted) or an integer tensor (token ids).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

namespace tfm {

using Shape = std::vector<std::size_t>;
using FloatArray = xt::xarray<float>;         // any rank, C order
using IdArray = xt::xarray<std::int64_t>;     // any rank, C order
using Record = std::variant<FloatArray, IdArray>;

// "[2,5,64]"
std::string shape_str(const Shape& shape);
template <class A>
std::string shape_of(const A& a) {
    return shape_str(Shape(a.shape().begin(), a.shape().end()));
}

// The record as floats (integer records are converted exactly up to 2^24).
FloatArray as_float(Record record);
// The record as ids; a float record must hold integral values (what text input gives).
IdArray as_ids(Record record);

// Product of the dimensions, or throws when it overflows `limit` elements; the product of the
// non-zero dimensions is held to the same limit even when another dimension is 0.
std::size_t checked_numel(const Shape& shape, std::size_t limit);

}  // namespace tfm
