// Writing model directories safely: a new directory is built beside its final place and
// renamed into it only when complete (a refusal half way, a full disk or SIGINT, SIGTERM or
// SIGHUP leaves nothing behind, a rerun starts clean), and a directory being trained is locked
// against a second writer.
#pragma once

#include <functional>
#include <string>

namespace tfm {

// Removes a directory tree (files, subdirectories); a missing path is not an error.
void remove_tree(const std::string& path);

// While a StagedDir lives, SIGINT, SIGTERM and SIGHUP (where their action is the default one)
// remove its staging directory, with async-signal-safe calls only, before the process dies of
// the signal as it would have.
class StagedDir {
public:
    // Refuses (UsageError) when final_path holds anything, unless replace: then commit()
    // puts the new directory in its place and removes the old one.
    StagedDir(std::string final_path, bool replace);
    StagedDir(const StagedDir&) = delete;
    StagedDir& operator=(const StagedDir&) = delete;
    ~StagedDir();  // removes the staging directory unless committed

    const std::string& path() const { return staging_; }  // where to write meanwhile
    // Runs write(path()); an Error it throws names the final path where it named the staging
    // one (a full disk is reported for -o, not for .tfm-new-XXXXXX).
    void fill(const std::function<void(const std::string& dir)>& write) const;
    void commit();                                        // rename into place

private:
    std::string final_, staging_;
    bool replace_ = false, committed_ = false;
};

// An exclusive advisory lock (flock) on DIR/.lock for as long as the object lives. A second
// holder gets an Error naming the process that has it.
class DirLock {
public:
    explicit DirLock(const std::string& dir);
    DirLock(const DirLock&) = delete;
    DirLock& operator=(const DirLock&) = delete;
    ~DirLock();

private:
    int fd_ = -1;
};

}  // namespace tfm
