// Heatmaps of matrices (attention weights [Tq,Tk] per head, positional encodings [T,D]): one
// panel per matrix in a grid, the viridis colour map over one value range for all panels.
// PNG carries the cells only; SVG adds panel titles and token labels around the same raster.
#pragma once

#include <string>
#include <vector>

#include "tfm/base/gemm.hpp"
#include "pictures/image.hpp"

namespace tfm {

struct HeatmapOptions {
    std::size_t cell = 0;                 // pixels per cell; 0: about 360 pixels per panel side
    double lo = 0, hi = 0;                // colour range; lo == hi: the data's min and max
    std::vector<std::string> row_labels;  // SVG only: one per row (queries, positions)
    std::vector<std::string> col_labels;  // SVG only: one per column (keys, dimensions)
    std::vector<std::string> titles;      // SVG only: one per panel ("head 0", ...)
};

// Pixels per cell and the colour range the options resolve to for these panels.
struct HeatmapLayout {
    std::size_t cell = 1, grid_cols = 1, grid_rows = 1, gap = 4, width = 0, height = 0;
    double lo = 0, hi = 1;
};
HeatmapLayout heatmap_layout(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

// The cells as an image: panels left to right, top to bottom, `gap` white pixels apart.
Image heatmap_image(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

// An SVG document: the image embedded as PNG, titles and labels as text.
std::string heatmap_svg(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

}  // namespace tfm
