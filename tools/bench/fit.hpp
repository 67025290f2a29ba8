// Power-law fits of measured costs: time ~ c * n^a (or c * n^a * D^b) by least squares on
// log-log data, with the coefficient of determination, and where two measured curves cross.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tfm {

struct PowerFit {
    double log_c = 0;                 // ln c
    std::vector<double> exponents;    // one per variable
    double r2 = 0;                    // on the log scale
    std::size_t points = 0;

    double predict(const std::vector<double>& x) const;
};

// y ~ c * prod_k x[i][k]^a_k over points i (x[i] one value per variable, all > 0, y > 0).
// A variable that does not vary over the points gets exponent 0. Throws Error with fewer
// points than unknowns, or a non-positive value.
PowerFit fit_power_law(const std::vector<std::vector<double>>& x, const std::vector<double>& y);

// "n^1.98 · D^1.01" for the variables' names (a variable that does not vary is left out).
std::string format_power_law(const PowerFit& f, const std::vector<std::string>& names);

// Where curve a (ya over x) and curve b (yb over the same x, ascending) cross for the last time
// (small sizes are the noisy ones): the largest x where the sign of ya - yb changes,
// interpolated on the log-log scale; nothing if they never cross inside the range.
std::optional<double> crossover(const std::vector<double>& x, const std::vector<double>& ya,
                                const std::vector<double>& yb);

}  // namespace tfm
