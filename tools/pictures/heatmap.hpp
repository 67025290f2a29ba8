// Heatmaps of matrices (attention weights [Tq,Tk] per head, positional encodings [T,D]): one
// panel per matrix in a grid, the viridis colour map over one value range for all panels.
// heatmap_image is the cells only; heatmap_picture (PNG) and heatmap_svg add panel titles, token
// labels and the colour scale around the same raster.
#pragma once

#include <string>
#include <vector>

#include "tfm/base/gemm.hpp"
#include "pictures/image.hpp"

namespace tfm {

struct HeatmapOptions {
    std::size_t cell = 0;                 // pixels per cell; 0: about 360 pixels per panel side
    double lo = 0, hi = 0;                // colour range; lo == hi: the data's min and max
    std::vector<std::string> row_labels;  // one per row (queries, positions)
    std::vector<std::string> col_labels;  // one per column (keys, dimensions)
    std::vector<std::string> titles;      // one per panel ("head 0", ...)
};

// Pixels per cell and the colour range the options resolve to for these panels.
struct HeatmapLayout {
    std::size_t cell = 1, grid_cols = 1, grid_rows = 1, gap = 4, width = 0, height = 0;
    double lo = 0, hi = 1;
};
HeatmapLayout heatmap_layout(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

// The cells as an image: panels left to right, top to bottom, `gap` white pixels apart.
Image heatmap_image(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

// The cells with what a report needs around them, as one raster for PNG: each panel's title
// above it, the row labels at its left and the column labels below it reading upwards (in the
// 5x7 font: ASCII, U+2581 as '_', accented Latin letters without their accents, others '?';
// every k-th label when cells are narrower than the text), and the colour scale at the right
// with its two ends' values.
struct PictureLayout {
    std::size_t left = 0, top = 0;            // where the first panel's cells start
    std::size_t step_x = 0, step_y = 0;       // from one panel's cells to the next's
    std::size_t bar_x = 0, bar_y = 0, bar_h = 0;  // the colour bar (10 pixels wide)
    int text_scale = 1;
};
Image heatmap_picture(const std::vector<ConstMat>& panels, const HeatmapOptions& opt, PictureLayout* where = nullptr);

// A label as the PNG font can draw it (see heatmap_picture), at most `most` characters.
std::string ascii_label(const std::string& label, std::size_t most = 16);

// An SVG document: the image embedded as PNG, titles and labels as text.
std::string heatmap_svg(const std::vector<ConstMat>& panels, const HeatmapOptions& opt);

}  // namespace tfm
