#include "bench/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "tfm/base/error.hpp"

namespace tfm {

TableFormat parse_table_format(const std::string& name) {
    if (name == "table") return TableFormat::Aligned;
    if (name == "csv") return TableFormat::Csv;
    if (name == "markdown") return TableFormat::Markdown;
    throw UsageError("unknown table format '" + name + "'");
}

void Table::add(std::vector<std::string> row) {
    if (row.size() != columns_.size())
        throw Error("table row has " + std::to_string(row.size()) + " cells for " +
                    std::to_string(columns_.size()) + " columns");
    rows_.push_back(std::move(row));
}

std::string Table::num(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

namespace {
// Characters on a terminal: UTF-8 continuation bytes take no column ("n^2·d" is 5 wide).
std::size_t width(const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s) w += (c & 0xC0) != 0x80;
    return w;
}

std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}
}  // namespace

std::string Table::render(TableFormat format) const {
    std::string out;
    auto line = [&](const std::vector<std::string>& cells, const std::vector<std::size_t>& w) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (format == TableFormat::Csv) {
                out += (i ? "," : "") + csv_cell(cells[i]);
            } else if (format == TableFormat::Markdown) {
                out += "| " + cells[i] + std::string(w[i] - width(cells[i]), ' ') + " ";
            } else {
                out += (i ? "  " : "") + std::string(w[i] - width(cells[i]), ' ') + cells[i];
            }
        }
        out += format == TableFormat::Markdown ? "|\n" : "\n";
    };
    std::vector<std::size_t> w(columns_.size());
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        w[i] = width(columns_[i]);
        for (const auto& r : rows_) w[i] = std::max(w[i], width(r[i]));
    }
    line(columns_, w);
    if (format == TableFormat::Markdown) {
        for (std::size_t i = 0; i < w.size(); ++i) out += "|" + std::string(w[i] + 2, '-');
        out += "|\n";
    }
    for (const auto& r : rows_) line(r, w);
    return out;
}

std::string tables_to_json(const std::vector<std::pair<std::string, Table>>& tables) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();  // tables and columns in their order
    for (const auto& [name, t] : tables) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& r : t.rows()) {
            nlohmann::ordered_json obj = nlohmann::ordered_json::object();
            for (std::size_t i = 0; i < r.size(); ++i) {
                const std::string& cell = r[i];
                char* end = nullptr;
                const double v = std::strtod(cell.c_str(), &end);
                const bool number = !cell.empty() && end && *end == '\0' && std::isfinite(v);
                const bool integer = number && cell.find_first_not_of("-0123456789") == std::string::npos;
                if (integer)
                    obj[t.columns()[i]] = std::strtoll(cell.c_str(), nullptr, 10);
                else if (number)
                    obj[t.columns()[i]] = v;
                else
                    obj[t.columns()[i]] = cell;
            }
            rows.push_back(std::move(obj));
        }
        doc[name] = std::move(rows);
    }
    return doc.dump(2) + "\n";
}

}  // namespace tfm
