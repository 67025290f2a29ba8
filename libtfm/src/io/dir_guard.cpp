#include "tfm/io/dir_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tfm/base/error.hpp"
#include "tfm/base/utf8.hpp"

namespace tfm {

namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    ::remove(path);
    return 0;
}

bool empty_or_missing(const std::string& path) {
    DIR* d = ::opendir(path.c_str());
    if (!d) return errno == ENOENT;
    bool empty = true;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") empty = false;
    }
    ::closedir(d);
    return empty;
}

std::string parent_of(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const std::size_t slash = p.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : p.substr(0, slash);
}

// The staging directories alive now, for the signal handler: fixed slots of NUL-terminated
// paths, written with the signals blocked so that the handler never sees half a path.
constexpr int kSlots = 8;
constexpr std::size_t kPathMax = 4096;
char g_staging[kSlots][kPathMax];
volatile std::sig_atomic_t g_used[kSlots];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Removes dir (relative to parent) and what it holds, `depth` levels of subdirectories deep,
// with system calls alone (async-signal-safe: no allocation, no stdio). True when dir is gone.
bool remove_tree_raw(int parent, const char* dir, int depth) {
    const int fd = ::openat(parent, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        alignas(8) char buf[4096];
        for (;;) {
            const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0) break;
            bool removed = false;
            for (long at = 0; at < n;) {
                const char* rec = buf + at;
                std::uint16_t reclen;
                std::memcpy(&reclen, rec + 16, 2);
                const unsigned char type = static_cast<unsigned char>(rec[18]);
                const char* name = rec + 19;
                at += reclen;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
                // Only what was really removed counts: an entry that cannot be (too deep, no
                // permission) is passed over, never read again and again.
                if (type == DT_DIR) removed |= depth > 0 && remove_tree_raw(fd, name, depth - 1);
                else removed |= ::unlinkat(fd, name, 0) == 0;
            }
            if (!removed) break;
            ::lseek(fd, 0, SEEK_SET);  // entries move as others go: read again
        }
        ::close(fd);
    }
    return ::unlinkat(parent, dir, AT_REMOVEDIR) == 0;
}

void on_fatal_signal(int sig) {
    const int saved = errno;
    for (int i = 0; i < kSlots; ++i)
        if (g_used[i]) remove_tree_raw(AT_FDCWD, g_staging[i], 4);
    errno = saved;
    ::signal(sig, SIG_DFL);  // then die of it, as without the handler
    ::raise(sig);
}

// SIGINT, SIGTERM and SIGHUP held back for as long as it lives (delivered after).
class SignalBlock {
public:
    SignalBlock() {
        sigset_t block;
        sigemptyset(&block);
        for (int s : kSignals) sigaddset(&block, s);
        ::pthread_sigmask(SIG_BLOCK, &block, &old_);
    }
    ~SignalBlock() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    SignalBlock(const SignalBlock&) = delete;
    SignalBlock& operator=(const SignalBlock&) = delete;

private:
    sigset_t old_;
};

void install_handlers() {
    for (int s : kSignals) {
        struct sigaction now {};
        if (::sigaction(s, nullptr, &now) != 0 || now.sa_handler != SIG_DFL || (now.sa_flags & SA_SIGINFO)) continue;
        struct sigaction sa {};
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (int b : kSignals) sigaddset(&sa.sa_mask, b);
        ::sigaction(s, &sa, nullptr);
    }
}

void register_staging(const std::string& path) {
    if (path.size() >= kPathMax) return;  // not removed on a signal, only by the destructor
    const SignalBlock block;
    for (int i = 0; i < kSlots; ++i)
        if (!g_used[i]) {
            std::memcpy(g_staging[i], path.c_str(), path.size() + 1);
            g_used[i] = 1;
            break;
        }
    install_handlers();
}

void unregister_staging(const std::string& path) {
    const SignalBlock block;
    for (int i = 0; i < kSlots; ++i)
        if (g_used[i] && path == g_staging[i]) {
            g_used[i] = 0;
            break;
        }
}

// message with every occurrence of the staging path replaced by the final one.
std::string renamed(std::string message, const std::string& from, const std::string& to) {
    replace_all(message, from, to);
    return message;
}

}  // namespace

void remove_tree(const std::string& path) {
    ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

StagedDir::StagedDir(std::string final_path, bool replace) : final_(std::move(final_path)), replace_(replace) {
    if (final_.empty()) throw UsageError("the output directory is an empty string");
    struct stat st {};
    if (::stat(final_.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw UsageError(final_ + " exists and is not a directory");
        if (!replace_ && !empty_or_missing(final_))
            throw UsageError(final_ + " already exists and is not empty" +
                             std::string(::stat((final_ + "/config.json").c_str(), &st) == 0 ? " (it holds a model)" : "") +
                             ": choose another directory, or give --force to replace it");
    }
    std::string tmpl = parent_of(final_) + "/.tfm-new-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        throw Error(final_ + ": cannot create a directory beside it: " + std::strerror(errno));
    ::chmod(tmpl.c_str(), 0755);
    staging_ = tmpl;
    register_staging(staging_);
}

StagedDir::~StagedDir() {
    if (!committed_) {
        remove_tree(staging_);
        unregister_staging(staging_);
    }
}

void StagedDir::fill(const std::function<void(const std::string& dir)>& write) const {
    try {
        write(staging_);
    } catch (const UsageError& e) {
        throw UsageError(renamed(e.what(), staging_, final_));
    } catch (const Interrupted&) {
        throw;
    } catch (const BrokenPipe&) {
        throw;
    } catch (const Error& e) {
        throw Error(renamed(e.what(), staging_, final_));
    }
}

void StagedDir::commit() {
    const SignalBlock block;  // the old directory moved aside and the new one put in place, or neither
    std::string old;
    struct stat st {};
    if (replace_ && ::stat(final_.c_str(), &st) == 0 && !empty_or_missing(final_)) {
        old = staging_ + ".old";
        if (::rename(final_.c_str(), old.c_str()) != 0)
            throw Error(final_ + ": cannot move the old directory aside: " + std::strerror(errno));
    }
    if (::rename(staging_.c_str(), final_.c_str()) != 0) {
        const int e = errno;
        if (!old.empty()) ::rename(old.c_str(), final_.c_str());
        throw Error(final_ + ": cannot put the new directory in place: " + std::strerror(e));
    }
    committed_ = true;
    unregister_staging(staging_);
    if (!old.empty()) remove_tree(old);
}

DirLock::DirLock(const std::string& dir) {
    const std::string path = dir + "/.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(path + ": cannot open the lock: " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        char buf[32] = {0};
        const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
        ::close(fd_);
        fd_ = -1;
        if (e != EWOULDBLOCK) throw Error(path + ": cannot lock: " + std::strerror(e));
        std::string who = n > 0 ? std::string(buf, std::size_t(n)) : "";
        while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
        throw Error(dir + " is in use by another tfm-train" + (who.empty() ? "" : " (process " + who + ")") +
                    ": wait for it to finish or stop it first");
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) {
        [[maybe_unused]] ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
    }
}

DirLock::~DirLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace tfm
