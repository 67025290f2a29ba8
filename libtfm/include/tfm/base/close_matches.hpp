// "Did you mean": the names of a list closest to one a user typed, for errors that name an
// unknown language code, model key or choice.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tfm {

// Edit distance (insertions, deletions, substitutions of bytes) between a and b, ASCII case
// ignored.
std::size_t edit_distance(const std::string& a, const std::string& b);

// Up to `most` names of `names` close to `typed`: those that start with it (case ignored) or
// lie within a third of its length in edit distance (at least 1, at most 3), closest first,
// ties in list order.
std::vector<std::string> close_matches(const std::string& typed, const std::vector<std::string>& names,
                                       std::size_t most = 5);

}  // namespace tfm
