#include "bench/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tfm/base/error.hpp"

namespace tfm {

double PowerFit::predict(const std::vector<double>& x) const {
    double l = log_c;
    for (std::size_t k = 0; k < exponents.size() && k < x.size(); ++k) l += exponents[k] * std::log(x[k]);
    return std::exp(l);
}

PowerFit fit_power_law(const std::vector<std::vector<double>>& x, const std::vector<double>& y) {
    const std::size_t n = y.size();
    if (x.size() != n) throw Error("fit: " + std::to_string(x.size()) + " points but " + std::to_string(n) + " values");
    if (n == 0) throw Error("fit: no points");
    const std::size_t vars = x[0].size();
    for (std::size_t i = 0; i < n; ++i) {
        if (x[i].size() != vars) throw Error("fit: points with different numbers of variables");
        if (!(y[i] > 0)) throw Error("fit: values must be positive");
        for (double v : x[i])
            if (!(v > 0)) throw Error("fit: variables must be positive");
    }
    // The variables that vary take part; the others get exponent 0.
    std::vector<std::size_t> used;
    for (std::size_t k = 0; k < vars; ++k)
        for (std::size_t i = 1; i < n; ++i)
            if (x[i][k] != x[0][k]) {
                used.push_back(k);
                break;
            }
    const std::size_t m = used.size() + 1;  // unknowns: ln c and one exponent per used variable
    if (n < m) throw Error("fit: " + std::to_string(n) + " points for " + std::to_string(m) + " unknowns");
    // Normal equations (A^T A) beta = A^T ln y, A = [1, ln x_k...], solved by Gaussian
    // elimination with partial pivoting (m is at most a handful).
    std::vector<double> ata(m * m, 0.0), aty(m, 0.0), row(m);
    for (std::size_t i = 0; i < n; ++i) {
        row[0] = 1.0;
        for (std::size_t j = 0; j < used.size(); ++j) row[j + 1] = std::log(x[i][used[j]]);
        const double ly = std::log(y[i]);
        for (std::size_t a = 0; a < m; ++a) {
            aty[a] += row[a] * ly;
            for (std::size_t b = 0; b < m; ++b) ata[a * m + b] += row[a] * row[b];
        }
    }
    for (std::size_t c = 0; c < m; ++c) {
        std::size_t piv = c;
        for (std::size_t r = c + 1; r < m; ++r)
            if (std::fabs(ata[r * m + c]) > std::fabs(ata[piv * m + c])) piv = r;
        if (std::fabs(ata[piv * m + c]) < 1e-12)
            throw Error("fit: the variables do not vary independently over the points");
        for (std::size_t b = 0; b < m; ++b) std::swap(ata[c * m + b], ata[piv * m + b]);
        std::swap(aty[c], aty[piv]);
        for (std::size_t r = 0; r < m; ++r) {
            if (r == c) continue;
            const double f = ata[r * m + c] / ata[c * m + c];
            for (std::size_t b = 0; b < m; ++b) ata[r * m + b] -= f * ata[c * m + b];
            aty[r] -= f * aty[c];
        }
    }
    PowerFit fit;
    fit.points = n;
    fit.log_c = aty[0] / ata[0];
    fit.exponents.assign(vars, 0.0);
    for (std::size_t j = 0; j < used.size(); ++j) fit.exponents[used[j]] = aty[j + 1] / ata[(j + 1) * m + j + 1];
    double mean = 0;
    for (double v : y) mean += std::log(v);
    mean /= double(n);
    double ss_res = 0, ss_tot = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double ly = std::log(y[i]), e = ly - std::log(fit.predict(x[i]));
        ss_res += e * e;
        ss_tot += (ly - mean) * (ly - mean);
    }
    fit.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
    return fit;
}

std::string format_power_law(const PowerFit& f, const std::vector<std::string>& names) {
    std::string s;
    char buf[64];
    for (std::size_t k = 0; k < f.exponents.size() && k < names.size(); ++k) {
        if (f.exponents[k] == 0.0) continue;
        std::snprintf(buf, sizeof buf, "%s^%.2f", names[k].c_str(), f.exponents[k]);
        s += (s.empty() ? "" : " · ") + std::string(buf);
    }
    return s.empty() ? "constant" : s;
}

std::optional<double> crossover(const std::vector<double>& x, const std::vector<double>& ya,
                                const std::vector<double>& yb) {
    const std::size_t n = std::min({x.size(), ya.size(), yb.size()});
    for (std::size_t i = n; i-- > 1;) {  // from the large end: small sizes are the noisy ones
        const double d0 = std::log(ya[i - 1]) - std::log(yb[i - 1]), d1 = std::log(ya[i]) - std::log(yb[i]);
        if (d1 == 0) return x[i];
        if ((d0 < 0) != (d1 < 0)) {
            const double t = d0 / (d0 - d1);  // where the log difference is zero
            return std::exp(std::log(x[i - 1]) + t * (std::log(x[i]) - std::log(x[i - 1])));
        }
    }
    if (n > 0 && ya[0] == yb[0]) return x[0];
    return std::nullopt;
}

}  // namespace tfm
