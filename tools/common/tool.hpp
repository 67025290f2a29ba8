// What every tfm tool shares: the CLI11 app with --help/--version and an example, the
// output-format flags, signal set-up, and the mapping of errors to messages and exit codes
// (docs/design.md §5): 0 ok, 1 runtime error, 2 usage error, 128 + the signal's number when a
// signal (SIGINT, SIGTERM, ...) ends the tool; a closed pipe
// downstream ends the tool quietly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfm/io/stream.hpp"

namespace tfm::tool {

class Tool {
public:
    Tool(std::string name, std::string description, std::string examples);

    CLI::App& app() { return app_; }
    // Adds --format npy|text and -t (text).
    void add_format_flags();
    // The format asked for (npy by default; text when stdout is a terminal).
    Format output_format() const;

    // An option renamed so that one name means one thing in every tool: the old spelling
    // (`--old` or `--old=value`, anywhere on the command line) still works for one release,
    // read as the new one after a warning; --help shows only the new name. With a subcommand,
    // only after it on the command line.
    void rename_option(std::string old_name, std::string new_name, std::string subcommand = "");

    // Parses argv and runs body; returns the exit code. Never lets an exception escape.
    int run(int argc, char** argv, const std::function<void()>& body);

    void warn(const std::string& message) const;
    void info(const std::string& message) const;  // progress and notes on stderr

private:
    void finish_stdout();
    int print_and_finish(const CLI::Error& e);
    std::string name_;
    CLI::App app_;
    struct Renamed {
        std::string old_name, new_name, subcommand;
    };
    std::vector<Renamed> renamed_;
    std::string format_ = "npy";
    bool text_ = false;
};

}  // namespace tfm::tool
