// Buffered byte input and output over a file descriptor or a string in memory. Readers of
// tensor streams, text lines and models sit on top of these; nothing here slurps a stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfm {

class Input {
public:
    explicit Input(int fd, std::string name = "stdin");   // does not own fd
    static Input from_string(std::string data, std::string name = "<memory>");
    Input(Input&&) noexcept;
    Input& operator=(Input&&) noexcept;
    ~Input();

    // Reads up to n bytes; returns fewer only at end of input.
    std::size_t read(void* dst, std::size_t n);
    // Makes at least n bytes visible (fewer at end of input) and returns what is buffered.
    std::string_view peek(std::size_t n);
    // Reads one line without its '\n' (a final line need not end in '\n'); false at end of
    // input. A line longer than max_bytes throws.
    bool getline(std::string& line, std::size_t max_bytes = std::size_t(1) << 30);
    bool at_end();
    // Whether input can be had now without waiting for its writer: ready() when a byte is
    // buffered or can be read, line_ready() when a whole line is (or the input has ended).
    // Files and memory are always ready; a quiet pipe or terminal is not. Tools read ahead
    // only while these hold once they have something to work on, so an interactive pipe gets
    // each result as soon as its line is in.
    bool ready();
    bool line_ready();
    // Bytes left when the input is a regular file (or memory); nullopt for pipes/terminals.
    std::optional<std::uint64_t> remaining() const;
    const std::string& name() const { return name_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string name_;
    std::size_t fill(std::size_t want);  // buffers more bytes; returns bytes buffered
};

// Output is checked to the end: every failed write throws, close() flushes and closes with
// its errors reported, and an Output destroyed without close() whose last flush fails leaves
// that error for take_unreported_write_error(), which every tool checks before it exits 0.
class Output {
public:
    explicit Output(int fd, std::string name = "");  // does not own fd; name prefixes errors
    // Creates (truncates) the file and owns its descriptor; errors name the path.
    static Output create_file(const std::string& path);
    static Output to_string();            // collects into memory (tests)
    Output(Output&&) noexcept;
    Output& operator=(Output&&) noexcept;
    ~Output();                            // flushes; a failure is kept, not thrown

    void write(const void* data, std::size_t n);
    void write(std::string_view s) { write(s.data(), s.size()); }
    void flush();                         // throws BrokenPipe on EPIPE, Error otherwise
    void close();                         // flush, then close an owned descriptor; checked
    bool is_terminal() const;
    const std::string& str() const;       // what a memory output collected
    const std::string& name() const { return name_; }

private:
    int fd_ = -1;
    bool owned_ = false, closed_ = false;
    std::string name_;
    std::vector<char> buf_;
    std::string memory_;
};

// The first write error that a destructor could not throw ("write error: ..."), and
// clears it; empty when there was none.
std::string take_unreported_write_error();

// True unless nothing at all is at path (a dangling link, a FIFO or an unreadable entry count as
// present: opening it then says what is wrong with it, instead of calling it missing).
bool path_present(const std::string& path);

// Opens a file for reading that must be a regular file: a FIFO, device or directory is
// refused without blocking ("not a regular file"), a symlink loop is named as such.
// Returns an owned descriptor.
int open_regular_file(const std::string& path);
// The whole of a regular file of at most max_bytes (more is an error naming the limit).
std::string read_regular_file(const std::string& path, std::size_t max_bytes);
// Writes path as a whole or not at all: a temporary beside it, written and synced with every
// error checked, then renamed into place. A symbolic link's target is what is replaced; a
// path that is neither a file nor a directory (/dev/null, /dev/stdout, a FIFO) is written to
// directly, never replaced.
void write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace tfm
