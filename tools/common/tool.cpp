#include "tool.hpp"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>

#include "tfm/error.hpp"
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
        app_.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app_.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app_.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app_.exit(e);
    } catch (const CLI::ParseError& e) {
        fail("error", e.what(), 2);
        std::fprintf(stderr, "Run '%s --help' for usage.\n", name_.c_str());
        return 2;
    }
    try {
        body();
        std::fflush(stdout);
        return 0;
    } catch (const BrokenPipe&) {
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
