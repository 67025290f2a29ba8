// Result tables for people (aligned columns, markdown) and for scripts (CSV, JSON).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tfm {

enum class TableFormat { Aligned, Csv, Markdown };
TableFormat parse_table_format(const std::string& name);  // "table" | "csv" | "markdown"

class Table {
public:
    explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
    void add(std::vector<std::string> row);  // one cell per column
    std::string render(TableFormat format) const;
    const std::vector<std::string>& columns() const { return columns_; }
    const std::vector<std::vector<std::string>>& rows() const { return rows_; }
    static std::string num(double v, int decimals);

private:
    std::vector<std::string> columns_;
    std::vector<std::vector<std::string>> rows_;
};

// {"name": [{"col": value, ...}, ...], ...}; cells that are numbers become JSON numbers.
std::string tables_to_json(const std::vector<std::pair<std::string, Table>>& tables);

}  // namespace tfm
