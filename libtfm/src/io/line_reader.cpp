#include "tfm/io/line_reader.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"

namespace tfm {

struct LineReader::Impl {
    int fd = -1;
    bool own_fd = false;
    gzFile gz = nullptr;
    std::unique_ptr<Input> plain;
    std::string buf;
    std::size_t pos = 0;
    bool eof = false;

    ~Impl() {
        if (gz) gzclose(gz);
        else if (own_fd && fd >= 0) ::close(fd);
    }
};

LineReader::LineReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
    Impl& s = *impl_;
    if (path == "-") {
        s.plain = std::make_unique<Input>(STDIN_FILENO, "stdin");
        return;
    }
    s.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s.fd < 0) throw Error(path + ": " + std::strerror(errno));
    s.own_fd = true;
    unsigned char magic[2] = {0, 0};
    ssize_t got = ::pread(s.fd, magic, 2, 0);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        s.gz = gzdopen(s.fd, "rb");
        if (!s.gz) throw Error(path + ": cannot open gzip stream");
        gzbuffer(s.gz, 1 << 17);
    } else {
        s.plain = std::make_unique<Input>(s.fd, path);
    }
}

LineReader::LineReader(LineReader&&) noexcept = default;
LineReader::~LineReader() = default;

bool LineReader::line_ready() { return !impl_->plain || impl_->plain->line_ready(); }

bool LineReader::next(std::string& line, std::size_t max_bytes) {
    Impl& s = *impl_;
    if (s.plain) {
        try {
            return s.plain->getline(line, max_bytes);
        } catch (const Error& e) {
            throw Error(path_ + ": " + e.what());
        }
    }
    line.clear();
    for (;;) {
        const char* base = s.buf.data() + s.pos;
        const void* nl = std::memchr(base, '\n', s.buf.size() - s.pos);
        if (nl) {
            std::size_t len = std::size_t(static_cast<const char*>(nl) - base);
            line.append(base, len);
            s.pos += len + 1;
            return true;
        }
        line.append(base, s.buf.size() - s.pos);
        s.buf.clear();
        s.pos = 0;
        if (line.size() > max_bytes) throw Error(path_ + ": line longer than " + std::to_string(max_bytes) + " bytes");
        if (s.eof) return !line.empty();
        s.buf.resize(1 << 16);
        int got = gzread(s.gz, s.buf.data(), unsigned(s.buf.size()));
        if (got < 0) {
            int err = 0;
            throw Error(path_ + ": gzip error: " + gzerror(s.gz, &err));
        }
        s.buf.resize(std::size_t(got));
        if (got == 0) {
            int err = 0;
            gzerror(s.gz, &err);
            if (err == Z_BUF_ERROR) throw Error(path_ + ": truncated gzip file");
            if (err != Z_OK) throw Error(path_ + ": corrupt gzip data");
            s.eof = true;
        }
    }
}

}  // namespace tfm
