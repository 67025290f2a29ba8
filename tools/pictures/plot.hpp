// Log-log line plots of measured sweeps (time against n), with fitted lines: as SVG or PNG
// (axes, tick values, legend; PNG text in a 5x7 pixel font) or as text for a terminal.
#pragma once

#include <string>
#include <vector>

#include "pictures/image.hpp"

namespace tfm {

struct PlotSeries {
    std::string name;
    std::vector<double> x, y;          // measured points (positive)
    std::vector<double> fit_x, fit_y;  // a fitted curve drawn dashed, or empty
};

struct PlotOptions {
    std::string title, x_label = "n", y_label = "time (s)";
};

std::string plot_svg(const std::vector<PlotSeries>& series, const PlotOptions& opt);
Image plot_image(const std::vector<PlotSeries>& series, const PlotOptions& opt);
std::string plot_text(const std::vector<PlotSeries>& series, const PlotOptions& opt, std::size_t width = 64,
                      std::size_t height = 18);

}  // namespace tfm
