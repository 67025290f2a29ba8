#include "tool.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <algorithm>
#include <new>
#include <utility>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/version.hpp"

namespace tfm::tool {

Tool::Tool(std::string name, std::string description, std::string examples)
    : name_(std::move(name)), app_(std::move(description), name_) {
    app_.set_version_flag("--version", name_ + " (tfm) " + std::string(kVersion));
    app_.footer("Examples:\n" + examples + "\nReport bugs with the command line and input that failed.");
    app_.get_formatter()->column_width(32);
}

void Tool::add_format_flags() {
    app_.add_option("--format", format_, "Output format: npy (binary, default) or text")
        ->check(CLI::IsMember({"npy", "text"}));
    app_.add_flag("-t,--text", text_, "Same as --format text");
}

Format Tool::output_format() const { return text_ ? Format::Text : parse_format(format_); }

void Tool::warn(const std::string& message) const {
    std::fprintf(stderr, "%s: warning: %s\n", name_.c_str(), message.c_str());
}

void Tool::info(const std::string& message) const {
    std::fprintf(stderr, "%s: %s\n", name_.c_str(), message.c_str());
}

// The end of every successful run: an output the body left to a destructor, then stdio's
// buffer, then the descriptor itself (a full disk can report only at close) must all have
// been written, or the run fails; nothing is lost quietly.
void Tool::finish_stdout() {
    const std::string deferred = take_unreported_write_error();
    if (!deferred.empty()) throw Error(deferred);
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        throw Error(std::string("write error: ") + std::strerror(errno ? errno : EIO));
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) != 0) return;  // stdout closed and never written: nothing lost
    if (::close(STDOUT_FILENO) != 0 && errno != EBADF && errno != EINTR)
        throw Error(std::string("write error: ") + std::strerror(errno));
}

// --help and --version: printed through std::cout, checked like any output.
int Tool::print_and_finish(const CLI::Error& e) {
    const int code = app_.exit(e);
    std::cout.flush();
    try {
        if (!std::cout) throw Error(std::string("write error: ") + std::strerror(errno ? errno : EIO));
        finish_stdout();
    } catch (const Error& err) {
        std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), err.what());
        return 1;
    }
    return code;
}

void Tool::rename_option(std::string old_name, std::string new_name, std::string subcommand) {
    renamed_.push_back({std::move(old_name), std::move(new_name), std::move(subcommand)});
}

int Tool::run(int argc, char** argv, const std::function<void()>& body) {
    // Die quietly of SIGPIPE like cat and seq, even if our parent ignored it.
    std::signal(SIGPIPE, SIG_DFL);
    auto fail = [&](const std::string& kind, const std::string& what, int code) {
        std::fprintf(stderr, "%s: %s: %s\n", name_.c_str(), kind.c_str(), what.c_str());
        return code;
    };
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return fail("error", "this build needs an x86-64-v3 CPU (AVX2, FMA)", 1);
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        std::vector<bool> warned(renamed_.size(), false), in_scope(renamed_.size(), false);
        for (std::string& a : args) {
            if (a == "--") break;  // what follows is positional: a file may be called "-i"
            for (std::size_t r = 0; r < renamed_.size(); ++r) {
                const Renamed& n = renamed_[r];
                if (!n.subcommand.empty() && !in_scope[r]) {
                    in_scope[r] = a == n.subcommand;
                    continue;
                }
                if (a != n.old_name && a.rfind(n.old_name + "=", 0) != 0) continue;
                a = n.new_name + a.substr(n.old_name.size());
                if (!warned[r]) warn(n.old_name + " is now " + n.new_name + "; the old name goes in the next release");
                warned[r] = true;
            }
        }
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first
        app_.parse(args);
    } catch (const CLI::CallForHelp& e) {
        return print_and_finish(e);
    } catch (const CLI::CallForAllHelp& e) {
        return print_and_finish(e);
    } catch (const CLI::CallForVersion& e) {
        return print_and_finish(e);
    } catch (const CLI::ParseError& e) {
        fail("error", e.what(), 2);
        std::fprintf(stderr, "Run '%s --help' for usage.\n", name_.c_str());
        return 2;
    }
    try {
        body();
        finish_stdout();
        return 0;
    } catch (const BrokenPipe&) {
        take_unreported_write_error();
        return 128 + SIGPIPE;
    } catch (const Interrupted& e) {
        std::fprintf(stderr, "%s: %s\n", name_.c_str(), e.what());
        return 128 + e.signal();
    } catch (const UsageError& e) {
        return fail("error", e.what(), 2);
    } catch (const Error& e) {
        return fail("error", e.what(), 1);
    } catch (const std::bad_alloc&) {
        return fail("error", "out of memory", 1);
    } catch (const std::exception& e) {
        return fail("error", std::string("internal error: ") + e.what(), 1);
    }
}

}  // namespace tfm::tool
