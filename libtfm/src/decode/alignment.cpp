#include "tfm/decode/alignment.hpp"

#include <algorithm>

namespace tfm {

std::vector<std::size_t> attended_sources(const Hypothesis& h) { return attended_sources(h.attention, h.ids.size()); }

std::vector<std::size_t> attended_sources(const std::vector<std::vector<float>>& rows, std::size_t tokens) {
    std::vector<std::size_t> out;
    for (std::size_t t = 0; t < tokens && t < rows.size(); ++t) {
        const std::vector<float>& a = rows[t];  // [S]
        const std::size_t candidates = a.size() > 1 ? a.size() - 1 : a.size();
        if (candidates == 0) break;
        out.push_back(std::size_t(std::max_element(a.begin(), a.begin() + long(candidates)) - a.begin()));
    }
    return out;
}

}  // namespace tfm
