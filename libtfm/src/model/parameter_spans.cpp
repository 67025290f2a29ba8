#include "tfm/model/parameter_spans.hpp"

#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"

namespace tfm {

std::vector<std::pair<float*, std::size_t>> parameter_spans(Model& m) {
    std::vector<std::pair<float*, std::size_t>> spans;
    visit_parameters(m, [&](const std::string&, float* p, std::size_t n) { spans.push_back({p, n}); });
    return spans;
}

void add_parameters(Model& into, Model& from) {
    const auto a = parameter_spans(into), b = parameter_spans(from);
    if (a.size() != b.size()) throw Error("adding models of different structures");
    for (std::size_t t = 0; t < a.size(); ++t) {
        if (a[t].second != b[t].second) throw Error("adding models of different structures");
        float* x = a[t].first;
        const float* y = b[t].first;
        parallel_blocks(a[t].second, 1 << 16, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) x[i] += y[i];
        });
    }
}

}  // namespace tfm
