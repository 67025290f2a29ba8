#include "tfm/io/io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {
constexpr std::size_t kChunk = std::size_t(1) << 16;
constexpr std::size_t kMaxLineScan = std::size_t(1) << 20;  // line_ready() looks this far for a newline

// "name: write error: <errno text>" ("write error: ..." for stdout, which has no name).
Error write_error(const std::string& name, int err) {
    return Error((name.empty() ? "" : name + ": ") + "write error: " + std::strerror(err));
}

void write_all(int fd, const char* p, std::size_t n, const std::string& name) {
    std::size_t done = 0;
    while (done < n) {
        ssize_t put = ::write(fd, p + done, n - done);
        if (put < 0 && errno == EINTR) continue;
        if (put < 0) {
            if (errno == EPIPE) throw BrokenPipe();
            throw write_error(name, errno);
        }
        done += std::size_t(put);
    }
}

std::mutex unreported_mutex;
std::string unreported;  // the first write error a destructor could not throw

void keep_unreported(const std::string& what) {
    std::lock_guard<std::mutex> lock(unreported_mutex);
    if (unreported.empty()) unreported = what;
}
}  // namespace

std::string take_unreported_write_error() {
    std::lock_guard<std::mutex> lock(unreported_mutex);
    std::string s;
    s.swap(unreported);
    return s;
}

bool path_present(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 || errno != ENOENT;
}

int open_regular_file(const std::string& path) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int e = errno;
        if (e == ELOOP) throw Error(path + ": symbolic link loop");
        throw Error(path + ": " + std::strerror(e));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(path + ": not a regular file");
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes) {
    const int fd = open_regular_file(path);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    Input in(fd, path);
    // remaining() is the file's size; a file that grows while it is read is held to the limit too.
    if (*in.remaining() > max_bytes)
        throw Error(path + ": " + std::to_string(*in.remaining()) + " bytes, more than the limit of " +
                    std::to_string(max_bytes));
    std::string data;
    char buf[1 << 16];
    while (std::size_t got = in.read(buf, sizeof buf)) {
        if (data.size() + got > max_bytes)
            throw Error(path + ": more than the limit of " + std::to_string(max_bytes) + " bytes");
        data.append(buf, got);
    }
    return data;
}

void write_file_atomic(const std::string& target, std::string_view bytes) {
    // A symbolic link keeps pointing where it did: the file it names is what gets replaced.
    std::string path = target;
    struct stat st {};
    if (lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        if (char* real = realpath(target.c_str(), nullptr)) {
            path = real;
            std::free(real);
        } else {  // a link to a file not there yet: the name it holds, beside the link when relative
            std::string to(4096, '\0');
            const ssize_t n = readlink(target.c_str(), to.data(), to.size());
            if (n > 0 && std::size_t(n) < to.size()) {
                to.resize(std::size_t(n));
                const std::size_t slash = target.rfind('/');
                path = to[0] == '/' || slash == std::string::npos ? to : target.substr(0, slash + 1) + to;
            }
        }
    }
    // Something that is not a file (a device such as /dev/null or /dev/stdout, a FIFO) is written
    // to, never replaced by a file renamed over it.
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        Output out = Output::create_file(path);
        out.write(bytes);
        out.close();
        return;
    }
    const std::string tmp = path + ".tmp";
    try {
        Output out = Output::create_file(tmp);
        out.write(bytes);
        out.close();
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        std::remove(tmp.c_str());
        throw Error(path + ": cannot rename into place: " + std::strerror(e));
    }
}

struct Input::Impl {
    int fd = -1;                 // -1: memory input
    std::string buf;             // buffered bytes are buf[pos, buf.size())
    std::size_t pos = 0;
    bool eof = false;
    std::optional<std::uint64_t> file_left;  // for regular files: bytes not yet buffered
};

Input::Input(int fd, std::string name) : impl_(std::make_unique<Impl>()), name_(std::move(name)) {
    impl_->fd = fd;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && at <= st.st_size) impl_->file_left = std::uint64_t(st.st_size - at);
    }
}

Input Input::from_string(std::string data, std::string name) {
    Input in(-1, std::move(name));
    in.impl_->buf = std::move(data);
    in.impl_->eof = true;
    in.impl_->file_left = 0;
    return in;
}

Input::Input(Input&&) noexcept = default;
Input& Input::operator=(Input&&) noexcept = default;
Input::~Input() = default;

std::size_t Input::fill(std::size_t want) {
    Impl& s = *impl_;
    if (s.pos > 0 && s.pos >= s.buf.size() / 2) {  // compact
        s.buf.erase(0, s.pos);
        s.pos = 0;
    }
    while (s.buf.size() - s.pos < want && !s.eof) {
        std::size_t old = s.buf.size();
        std::size_t ask = std::max(kChunk, want - (old - s.pos));
        s.buf.resize(old + ask);
        ssize_t got = ::read(s.fd, s.buf.data() + old, ask);
        if (got < 0 && errno == EINTR) {
            s.buf.resize(old);
            continue;
        }
        if (got < 0) {
            int e = errno;
            s.buf.resize(old);
            throw Error(name_ + ": read error: " + std::strerror(e));
        }
        s.buf.resize(old + std::size_t(got));
        if (got == 0) s.eof = true;
        if (s.file_left) *s.file_left -= std::min<std::uint64_t>(*s.file_left, std::uint64_t(got));
    }
    return s.buf.size() - s.pos;
}

std::size_t Input::read(void* dst, std::size_t n) {
    if (n == 0) return 0;
    Impl& s = *impl_;
    char* out = static_cast<char*>(dst);
    std::size_t done = 0;
    std::size_t have = std::min(n, s.buf.size() - s.pos);
    std::memcpy(out, s.buf.data() + s.pos, have);
    s.pos += have;
    done += have;
    // Large reads go straight from the descriptor into dst, without the buffer.
    while (done < n && !s.eof && s.fd >= 0) {
        ssize_t got = ::read(s.fd, out + done, n - done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw Error(name_ + ": read error: " + std::strerror(errno));
        if (got == 0) s.eof = true;
        done += std::size_t(got);
        if (s.file_left) *s.file_left -= std::min<std::uint64_t>(*s.file_left, std::uint64_t(got));
    }
    return done;
}

std::string_view Input::peek(std::size_t n) {
    fill(n);
    return std::string_view(impl_->buf).substr(impl_->pos, std::min(n, impl_->buf.size() - impl_->pos));
}

bool Input::getline(std::string& line, std::size_t max_bytes) {
    Impl& s = *impl_;
    line.clear();
    for (;;) {
        std::size_t start = s.pos;
        const char* base = s.buf.data();
        const void* nl = std::memchr(base + start, '\n', s.buf.size() - start);
        if (nl) {
            std::size_t end = std::size_t(static_cast<const char*>(nl) - base);
            line.append(base + start, end - start);
            s.pos = end + 1;
            if (line.size() > max_bytes)
                throw Error("line longer than " + std::to_string(max_bytes) + " bytes");
            return true;
        }
        line.append(base + start, s.buf.size() - start);
        s.pos = s.buf.size();
        if (line.size() > max_bytes)
            throw Error("line longer than " + std::to_string(max_bytes) + " bytes");
        if (fill(1) == 0) return !line.empty();
    }
}

bool Input::at_end() { return fill(1) == 0; }

namespace {

// Whether a read of fd would return at once (data, end of input or an error to report).
bool readable_now(int fd) {
    pollfd p{fd, POLLIN, 0};
    for (;;) {
        const int r = ::poll(&p, 1, 0);
        if (r >= 0) return r > 0;
        if (errno != EINTR) return true;  // let the read itself report what is wrong
    }
}

}  // namespace

bool Input::ready() {
    const Impl& s = *impl_;
    return s.fd < 0 || s.eof || s.file_left || s.pos < s.buf.size() || readable_now(s.fd);
}

bool Input::line_ready() {
    Impl& s = *impl_;
    if (s.fd < 0 || s.file_left) return true;
    std::size_t scanned = 0;  // bytes after pos known to hold no '\n'
    for (;;) {
        const std::size_t have = s.buf.size() - s.pos;
        if (s.eof || std::memchr(s.buf.data() + s.pos + scanned, '\n', have - scanned)) return true;
        // A long line still arriving: getline reads the rest (and bounds it).
        if (have >= kMaxLineScan) return true;
        scanned = have;
        if (!readable_now(s.fd)) return false;
        fill(have + 1);  // one read, which poll says will not wait
        scanned = std::min(scanned, s.buf.size() - s.pos);  // fill may compact the buffer
    }
}

std::optional<std::uint64_t> Input::remaining() const {
    if (!impl_->file_left) return std::nullopt;
    return *impl_->file_left + (impl_->buf.size() - impl_->pos);
}

Output::Output(int fd, std::string name) : fd_(fd), name_(std::move(name)) { buf_.reserve(kChunk); }

Output Output::create_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
    Output out(fd, path);
    out.owned_ = true;
    return out;
}

Output Output::to_string() { return Output(-1, "<memory>"); }

Output::Output(Output&& o) noexcept
    : fd_(o.fd_), owned_(o.owned_), closed_(o.closed_), name_(std::move(o.name_)), buf_(std::move(o.buf_)),
      memory_(std::move(o.memory_)) {
    o.fd_ = -1;
    o.owned_ = false;
    o.closed_ = true;
}

Output& Output::operator=(Output&& o) noexcept {
    if (this != &o) {
        this->~Output();
        new (this) Output(std::move(o));
    }
    return *this;
}

Output::~Output() {
    if (closed_) return;
    try {
        flush();
    } catch (const BrokenPipe&) {
    } catch (const std::exception& e) {
        keep_unreported(e.what());
    }
    if (owned_ && fd_ >= 0 && ::close(fd_) != 0) keep_unreported(write_error(name_, errno).what());
}

void Output::close() {
    if (closed_) return;
    flush();
    closed_ = true;
    if (owned_ && fd_ >= 0) {
        const int fd = fd_;
        fd_ = -1;
        if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
            const int e = errno;
            ::close(fd);
            throw write_error(name_, e);
        }
        if (::close(fd) != 0) throw write_error(name_, errno);
    }
}

void Output::write(const void* data, std::size_t n) {
    if (n == 0) return;
    const char* p = static_cast<const char*>(data);
    if (fd_ < 0) {
        memory_.append(p, n);
        return;
    }
    if (buf_.size() + n > kChunk) flush();
    if (n >= kChunk) {  // big writes bypass the buffer
        write_all(fd_, p, n, name_);
        return;
    }
    buf_.insert(buf_.end(), p, p + n);
}

void Output::flush() {
    if (fd_ < 0 || buf_.empty()) return;
    std::vector<char> pending;
    pending.swap(buf_);  // cleared even when the write fails
    buf_.reserve(kChunk);
    write_all(fd_, pending.data(), pending.size(), name_);
}

bool Output::is_terminal() const { return fd_ >= 0 && isatty(fd_); }

const std::string& Output::str() const { return memory_; }

}  // namespace tfm
