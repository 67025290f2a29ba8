#include "tfm/eval/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {

std::string fixed(double x, int width) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", width, x);
    return buf;
}

// The code points of s (UTF-8), for aligning columns.
std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
    const std::size_t w = display_width(s);
    if (w >= width) return s;
    return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

}  // namespace

std::string python_float(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
    if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    std::string sci(buf, r.ptr);
    // d.ddde[+-]XX -> digits and exponent
    const std::size_t e = sci.find('e');
    std::string mant = sci.substr(0, e);
    const int exp10 = std::stoi(sci.substr(e + 1));
    const bool neg = mant[0] == '-';
    if (neg) mant.erase(0, 1);
    std::string digits;
    for (char c : mant)
        if (c != '.') digits += c;
    std::string out = neg ? "-" : "";
    if (exp10 < -4 || exp10 >= 16) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char ex[16];
        std::snprintf(ex, sizeof ex, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
        return out + ex;
    }
    if (exp10 < 0) return out + "0." + std::string(std::size_t(-exp10 - 1), '0') + digits;
    const std::size_t int_digits = std::size_t(exp10) + 1;
    if (digits.size() <= int_digits) return out + digits + std::string(int_digits - digits.size(), '0') + ".0";
    return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += char(c);
                }
        }
    }
    return out + "\"";
}

std::string format_text(const ScoreLine& line, int width, bool score_only) {
    std::string sc = fixed(line.score.score, width);
    if (line.interval) sc += " (μ = " + fixed(line.interval->mean, width) + " ± " + fixed(line.interval->ci, width) + ")";
    if (score_only) return sc;
    std::string out = line.signature.empty() ? line.score.name : line.score.name + "|" + line.signature;
    out += " = " + sc;
    if (!line.score.verbose.empty()) out += " " + line.score.verbose;
    return out;
}

std::string format_json(const ScoreLine& line, int width) {
    const auto num = [&](double x) { return python_float(std::stod(fixed(x, width))); };
    std::vector<std::pair<std::string, std::string>> fields = {{"name", json_quote(line.score.name)},
                                                               {"score", num(line.score.score)},
                                                               {"signature", json_quote(line.signature)}};
    if (line.interval) {
        const std::string mean = fixed(line.interval->mean, width), ci = fixed(line.interval->ci, width);
        fields.push_back({"confidence_mean", python_float(std::stod(mean))});
        fields.push_back({"confidence_var", python_float(std::stod(ci))});
        fields.push_back({"confidence", json_quote("μ = " + mean + " ± " + ci)});
    }
    if (!line.score.verbose.empty()) fields.push_back({"verbose_score", json_quote(line.score.verbose)});
    for (std::size_t at = 0; at < line.signature.size();) {
        std::size_t end = line.signature.find('|', at);
        if (end == std::string::npos) end = line.signature.size();
        const std::string param = line.signature.substr(at, end - at);
        const std::size_t colon = param.find(':');
        fields.push_back({json_quote(param.substr(0, colon)), json_quote(param.substr(colon + 1))});
        at = end + 1;
    }
    std::string out = "{\n";
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string key = fields[i].first[0] == '"' ? fields[i].first : json_quote(fields[i].first);
        out += " " + key + ": " + fields[i].second + (i + 1 < fields.size() ? ",\n" : "\n");
    }
    return out + "}";
}

std::string align_on_equals(const std::vector<std::string>& lines) {
    std::size_t w = 0;
    for (const std::string& l : lines) {
        const std::size_t eq = l.find('=');
        if (eq != std::string::npos) w = std::max(w, display_width(l.substr(0, eq == 0 ? 0 : eq - 1)));
    }
    std::string out;
    for (const std::string& l : lines) {
        const std::size_t eq = l.find('=');
        if (eq == std::string::npos || eq == 0) {
            out += l + "\n";
            continue;
        }
        out += pad(l.substr(0, eq - 1), w, true) + l.substr(eq - 1) + "\n";
    }
    return out;
}

std::string format_systems(const std::vector<std::string>& metric_names, const std::vector<std::string>& signatures,
                           const std::vector<SystemRow>& rows, const std::string& test, std::size_t samples, int width,
                           bool json) {
    if (json) {
        const auto opt = [&](bool has, double x) { return has ? python_float(x) : std::string("null"); };
        std::string out = "[\n";
        for (std::size_t r = 0; r < rows.size(); ++r) {
            out += "    {\n        \"system\": " + json_quote(rows[r].name);
            for (std::size_t m = 0; m < metric_names.size(); ++m) {
                const PairedResult& p = rows[r].results[m];
                out += ",\n        " + json_quote(metric_names[m]) + ": {\n";
                out += "            \"score\": " + python_float(p.score) + ",\n";
                out += "            \"p_value\": " + opt(p.has_p, p.p_value) + ",\n";
                out += "            \"mean\": " + opt(p.has_ci, p.interval.mean) + ",\n";
                out += "            \"ci\": " + opt(p.has_ci, p.interval.ci) + "\n        }";
            }
            out += "\n    }" + std::string(r + 1 < rows.size() ? "," : "") + "\n";
        }
        return out + "]\n";
    }
    // A plain table: one row per system, one column per metric.
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> header{"System"};
    for (const std::string& m : metric_names) header.push_back(test == "bs" ? m + " (μ ± 95% CI)" : m);
    cells.push_back(header);
    for (const SystemRow& row : rows) {
        std::vector<std::string> line{row.name};
        for (const PairedResult& p : row.results) {
            std::string c = fixed(p.score, width);
            if (p.has_ci) c += " (" + fixed(p.interval.mean, width) + " ± " + fixed(p.interval.ci, width) + ")";
            if (p.has_p) {
                char buf[64];
                std::snprintf(buf, sizeof buf, " (p = %.4f)%s", p.p_value, p.p_value <= 0.05 ? "*" : "");
                c += buf;
            }
            line.push_back(c);
        }
        cells.push_back(line);
    }
    std::vector<std::size_t> widths(header.size(), 0);
    for (const auto& line : cells)
        for (std::size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], display_width(line[c]));
    std::string out;
    for (std::size_t r = 0; r < cells.size(); ++r) {
        std::string l;
        for (std::size_t c = 0; c < cells[r].size(); ++c) l += (c ? "   " : "") + pad(cells[r][c], widths[c], c == 0);
        while (!l.empty() && l.back() == ' ') l.pop_back();
        out += l + "\n";
    }
    if (!test.empty()) {
        out += "\nPaired " + std::string(test == "bs" ? "bootstrap resampling" : "approximate randomization") +
               " test with " + std::to_string(samples) + (test == "bs" ? " resampling trials" : " trials") +
               ": each system against the baseline; p < 0.05 is marked with '*'.\n";
    }
    out += "\nMetric signatures:\n";
    for (std::size_t m = 0; m < metric_names.size(); ++m) out += " - " + pad(metric_names[m], 10, false) + " " + signatures[m] + "\n";
    return out;
}

}  // namespace tfm
