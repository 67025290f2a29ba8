#include "tfm/io/dir_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tfm/base/error.hpp"

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
}

StagedDir::~StagedDir() {
    if (!committed_) remove_tree(staging_);
}

void StagedDir::commit() {
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
