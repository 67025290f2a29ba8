#include "pictures/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "pictures/bitmap_font.hpp"
#include "tfm/base/error.hpp"

namespace tfm {

namespace {

// The plot area is fixed; the image widens to the right for the legend's longest name.
constexpr double kH = 440, kLeft = 80, kPlotRight = 540, kTop = 40, kBottom = 56;
const Rgb kPalette[8] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                         {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};

// The log-log frame every rendering shares: data bounds and data -> pixel mapping.
struct Frame {
    double lx0, lx1, ly0, ly1;  // log10 bounds
    double width = 720;         // of the whole picture
    double px(double x) const { return kLeft + (std::log10(x) - lx0) / (lx1 - lx0) * (kPlotRight - kLeft); }
    double py(double y) const { return kH - kBottom - (std::log10(y) - ly0) / (ly1 - ly0) * (kH - kTop - kBottom); }
};

Frame frame(const std::vector<PlotSeries>& series) {
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& s : series) {
        if (s.x.size() != s.y.size() || s.fit_x.size() != s.fit_y.size())
            throw Error("plot: series '" + s.name + "' has unequal x and y");
        for (std::size_t i = 0; i < s.x.size(); ++i)
            if (s.x[i] > 0 && s.y[i] > 0)
                x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]), y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
    if (!(x0 <= x1)) throw Error("plot: no positive points to draw");
    Frame f{std::log10(x0), std::log10(x1), std::log10(y0), std::log10(y1)};
    std::size_t longest = 0;
    for (const auto& s : series) longest = std::max(longest, s.name.size());
    f.width = std::max(720.0, kPlotRight + 50 + 7.0 * double(longest));
    if (f.lx1 - f.lx0 < 1e-9) f.lx0 -= 0.5, f.lx1 += 0.5;
    if (f.ly1 - f.ly0 < 1e-9) f.ly0 -= 0.5, f.ly1 += 0.5;
    const double mx = 0.04 * (f.lx1 - f.lx0), my = 0.06 * (f.ly1 - f.ly0);
    f.lx0 -= mx, f.lx1 += mx, f.ly0 -= my, f.ly1 += my;
    return f;
}

// Ticks: the points' own x values; y at 1, 2, 5 times powers of ten inside the range.
std::vector<double> x_ticks(const std::vector<PlotSeries>& series) {
    std::vector<double> t;
    for (const auto& s : series) t.insert(t.end(), s.x.begin(), s.x.end());
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    while (t.size() > 12) {  // every other one until they fit
        std::vector<double> half;
        for (std::size_t i = 0; i < t.size(); i += 2) half.push_back(t[i]);
        t = half;
    }
    return t;
}

std::vector<double> y_ticks(const Frame& f) {
    std::vector<double> t;
    for (int e = int(std::floor(f.ly0)); e <= int(std::ceil(f.ly1)); ++e)
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            if (std::log10(v) >= f.ly0 && std::log10(v) <= f.ly1) t.push_back(v);
        }
    if (t.size() > 10) t.erase(std::remove_if(t.begin(), t.end(), [](double v) {
        const double m = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        return std::fabs(m - 1.0) > 1e-6;
    }), t.end());
    return t;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
}

}  // namespace

std::string plot_svg(const std::vector<PlotSeries>& series, const PlotOptions& opt) {
    const Frame f = frame(series);
    char buf[256];
    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(f.width) +
                    "\" height=\"440\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    std::snprintf(buf, sizeof buf, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n",
                  kLeft, kTop, kPlotRight - kLeft, kH - kTop - kBottom);
    s += buf;
    for (double t : x_ticks(series)) {
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%g\" "
                      "text-anchor=\"middle\">%s</text>\n",
                      f.px(t), kTop, f.px(t), kH - kBottom, f.px(t), kH - kBottom + 16, num(t).c_str());
        s += buf;
    }
    for (double t : y_ticks(f)) {
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" "
                      "text-anchor=\"end\">%s</text>\n",
                      kLeft, f.py(t), kPlotRight, f.py(t), kLeft - 6, f.py(t) + 4, num(t).c_str());
        s += buf;
    }
    s += "<text x=\"" + num((kLeft + kPlotRight) / 2) + "\" y=\"" + num(kH - 14) + "\" text-anchor=\"middle\">" +
         esc(opt.x_label) + " (log scale)</text>\n";
    s += "<text transform=\"translate(18," + num((kTop + kH - kBottom) / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         esc(opt.y_label) + " (log scale)</text>\n";
    if (!opt.title.empty()) s += "<text x=\"" + num(kLeft) + "\" y=\"24\" font-size=\"14\">" + esc(opt.title) + "</text>\n";
    for (std::size_t k = 0; k < series.size(); ++k) {
        const PlotSeries& ps = series[k];
        const std::string col = hex(kPalette[k % 8]);
        std::string pts;
        for (std::size_t i = 0; i < ps.x.size(); ++i) {
            if (!(ps.x[i] > 0 && ps.y[i] > 0)) continue;
            std::snprintf(buf, sizeof buf, "%.1f,%.1f ", f.px(ps.x[i]), f.py(ps.y[i]));
            pts += buf;
            std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", f.px(ps.x[i]),
                          f.py(ps.y[i]), col.c_str());
            s += buf;
        }
        s += "<polyline fill=\"none\" stroke=\"" + col + "\" stroke-width=\"1.5\" points=\"" + pts + "\"/>\n";
        if (!ps.fit_x.empty()) {
            std::string fp;
            for (std::size_t i = 0; i < ps.fit_x.size(); ++i) {
                std::snprintf(buf, sizeof buf, "%.1f,%.1f ", f.px(ps.fit_x[i]), f.py(ps.fit_y[i]));
                fp += buf;
            }
            s += "<polyline fill=\"none\" stroke=\"" + col + "\" stroke-dasharray=\"5,4\" points=\"" + fp + "\"/>\n";
        }
        const double ly = kTop + 14 + 18 * double(k);
        std::snprintf(buf, sizeof buf, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"/>",
                      kPlotRight + 10, ly - 4, kPlotRight + 30, ly - 4, col.c_str());
        s += buf;
        s += "<text x=\"" + num(kPlotRight + 36) + "\" y=\"" + num(ly) + "\">" + esc(ps.name) + "</text>\n";
    }
    return s + "</svg>\n";
}

Image plot_image(const std::vector<PlotSeries>& series, const PlotOptions& opt) {
    const Frame f = frame(series);
    Image img(static_cast<std::size_t>(f.width), static_cast<std::size_t>(kH));
    const Rgb grid{221, 221, 221}, black{0, 0, 0};
    for (double t : x_ticks(series)) img.line(f.px(t), kTop, f.px(t), kH - kBottom, grid);
    for (double t : y_ticks(f)) img.line(kLeft, f.py(t), kPlotRight, f.py(t), grid);
    img.line(kLeft, kTop, kPlotRight, kTop, black);
    img.line(kLeft, kH - kBottom, kPlotRight, kH - kBottom, black);
    img.line(kLeft, kTop, kLeft, kH - kBottom, black);
    img.line(kPlotRight, kTop, kPlotRight, kH - kBottom, black);
    // Text in the 5x7 font: tick values, axis names, title.
    for (double t : x_ticks(series)) {
        const std::string v = num(t);
        draw_text(img, int(f.px(t)) - text_width(v) / 2, int(kH - kBottom) + 6, v, black);
    }
    for (double t : y_ticks(f)) {
        const std::string v = num(t);
        draw_text(img, int(kLeft) - 6 - text_width(v), int(f.py(t)) - 3, v, black);
    }
    const std::string xl = opt.x_label + " (log scale)", yl = opt.y_label + " (log scale)";
    draw_text(img, int((kLeft + kPlotRight) / 2) - text_width(xl) / 2, int(kH) - 22, xl, black);
    draw_text_up(img, 8, int((kTop + kH - kBottom) / 2) + text_width(yl) / 2, yl, black);
    if (!opt.title.empty()) draw_text(img, int(kLeft), 14, opt.title, black, 2);
    for (std::size_t k = 0; k < series.size(); ++k) {
        const PlotSeries& ps = series[k];
        const Rgb col = kPalette[k % 8];
        for (std::size_t i = 0; i + 1 < ps.fit_x.size(); ++i) {  // dashed: every other stretch of the segment
            const double x0 = f.px(ps.fit_x[i]), y0 = f.py(ps.fit_y[i]), x1 = f.px(ps.fit_x[i + 1]), y1 = f.py(ps.fit_y[i + 1]);
            const int pieces = std::max(1, int(std::hypot(x1 - x0, y1 - y0) / 5));
            for (int p = 0; p < pieces; p += 2)
                img.line(x0 + (x1 - x0) * p / pieces, y0 + (y1 - y0) * p / pieces, x0 + (x1 - x0) * (p + 1) / pieces,
                         y0 + (y1 - y0) * (p + 1) / pieces, col);
        }
        for (std::size_t i = 0; i < ps.x.size(); ++i) {
            const double x = f.px(ps.x[i]), y = f.py(ps.y[i]);
            img.fill_rect(std::size_t(std::max(0.0, x - 2)), std::size_t(std::max(0.0, y - 2)), 5, 5, col);
            if (i + 1 < ps.x.size()) img.line(x, y, f.px(ps.x[i + 1]), f.py(ps.y[i + 1]), col);
        }
        img.fill_rect(std::size_t(kPlotRight + 10), std::size_t(kTop + 8 + 18 * double(k)), 20, 3, col);  // legend key
        draw_text(img, int(kPlotRight + 36), int(kTop + 6 + 18 * double(k)), ps.name, black);
    }
    return img;
}

std::string plot_text(const std::vector<PlotSeries>& series, const PlotOptions& opt, std::size_t width,
                      std::size_t height) {
    const Frame f = frame(series);
    const char marks[8] = {'*', '+', 'o', 'x', '#', '@', '%', '&'};
    std::vector<std::string> rows(height, std::string(width, ' '));
    auto cell = [&](double x, double y, char c) {
        const double cx = (std::log10(x) - f.lx0) / (f.lx1 - f.lx0) * double(width - 1);
        const double cy = (f.ly1 - std::log10(y)) / (f.ly1 - f.ly0) * double(height - 1);
        if (cx >= 0 && cy >= 0 && cx < double(width) && cy < double(height))
            rows[std::size_t(std::lround(cy))][std::size_t(std::lround(cx))] = c;
    };
    for (const PlotSeries& ps : series)  // fitted curves, densely, under the points
        for (std::size_t i = 0; i + 1 < ps.fit_x.size(); ++i)
            for (int step = 0; step <= 16; ++step) {
                const double u = step / 16.0;
                cell(std::pow(10.0, std::log10(ps.fit_x[i]) * (1 - u) + std::log10(ps.fit_x[i + 1]) * u),
                     std::pow(10.0, std::log10(ps.fit_y[i]) * (1 - u) + std::log10(ps.fit_y[i + 1]) * u), '.');
            }
    for (std::size_t k = 0; k < series.size(); ++k)
        for (std::size_t i = 0; i < series[k].x.size(); ++i) cell(series[k].x[i], series[k].y[i], marks[k % 8]);
    const auto short_num = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", v);
        return std::string(buf);
    };
    const std::string top = short_num(std::pow(10.0, f.ly1)), bottom = short_num(std::pow(10.0, f.ly0));
    const std::size_t pad = std::max(top.size(), bottom.size());
    std::string out = opt.title.empty() ? "" : opt.title + "\n";
    for (std::size_t r = 0; r < height; ++r) {
        std::string label = r == 0 ? top : r + 1 == height ? bottom : "";
        out += std::string(pad - label.size(), ' ') + label + " |" + rows[r] + "\n";
    }
    out += std::string(pad + 1, ' ') + "+" + std::string(width, '-') + "\n";
    const std::string l = short_num(std::pow(10.0, f.lx0)), r = short_num(std::pow(10.0, f.lx1));
    out += std::string(pad + 2, ' ') + l + std::string(width > l.size() + r.size() ? width - l.size() - r.size() : 1, ' ') +
           r + "\n";
    out += std::string(pad + 2, ' ') + opt.y_label + " against " + opt.x_label + ", log-log; . fitted\n";
    for (std::size_t k = 0; k < series.size(); ++k)
        out += std::string(pad + 2, ' ') + marks[k % 8] + " " + series[k].name + "\n";
    return out;
}

}  // namespace tfm
