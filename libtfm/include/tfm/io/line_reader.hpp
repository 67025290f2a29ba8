// Lines of a text file, plain or gzip-compressed (detected by its magic bytes), or of stdin
// ("-"), read with bounded memory.
#pragma once

#include <memory>
#include <string>

namespace tfm {

class LineReader {
public:
    explicit LineReader(const std::string& path);  // "-" is stdin
    LineReader(LineReader&&) noexcept;
    ~LineReader();
    // The next line without its '\n'; false at the end. A line longer than max_bytes throws.
    bool next(std::string& line, std::size_t max_bytes = std::size_t(1) << 30);
    // Whether the next line can be had without waiting (Input::line_ready; gzip is a file).
    bool line_ready();
    const std::string& path() const { return path_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_;
};

}  // namespace tfm
