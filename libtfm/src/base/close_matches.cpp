#include "tfm/base/close_matches.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace tfm {

namespace {
char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);  // distances from a's prefix to each prefix of b
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({up + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> close_matches(const std::string& typed, const std::vector<std::string>& names,
                                       std::size_t most) {
    if (typed.empty() || most == 0) return {};
    const std::size_t limit = std::clamp<std::size_t>(typed.size() / 3, 1, 3);
    std::vector<std::pair<std::size_t, std::size_t>> found;  // (distance, index in names)
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& n = names[i];
        const bool prefix = n.size() > typed.size() && std::equal(typed.begin(), typed.end(), n.begin(),
                                                                  [](char x, char y) { return lower(x) == lower(y); });
        // Distances beyond the limit are not needed: a length gap alone can rule a name out.
        const std::size_t gap = n.size() > typed.size() ? n.size() - typed.size() : typed.size() - n.size();
        const std::size_t d = prefix ? 0 : gap > limit ? limit + 1 : edit_distance(typed, n);
        if (d <= limit) found.emplace_back(d, i);
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (std::size_t k = 0; k < found.size() && out.size() < most; ++k) out.push_back(names[found[k].second]);
    return out;
}

}  // namespace tfm
