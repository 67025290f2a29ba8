// tfm::Error and its kinds. The library never prints and never exits: it throws one of
// these with a message that names the record, tensor or shape involved; tools map the kind
// to an exit code (docs/design.md §5).
#pragma once

#include <stdexcept>
#include <string>

namespace tfm {

// Bad data or a bad model: exit code 1.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The command line asks for something impossible (e.g. D % H != 0 from flags): exit code 2.
class UsageError : public Error {
public:
    using Error::Error;
};

// The reader of our stdout went away (EPIPE): tools end quietly.
class BrokenPipe : public Error {
public:
    BrokenPipe() : Error("broken pipe") {}
};

// A run stopped by a signal after saving its work; tools exit with 128 + signal.
class Interrupted : public Error {
public:
    Interrupted(int signal, const std::string& what) : Error(what), signal_(signal) {}
    int signal() const { return signal_; }

private:
    int signal_;
};

// An error about record `index` (0-based) of a stream; the message reads "record N: ...",
// with N counted from 1 as people count.
Error record_error(std::size_t index, const std::string& what);

}  // namespace tfm
