// The line tools read their input in windows: up to N items at a time, sorted by length and
// batched together for speed. Two rules make them good Unix filters, kept here once:
//  - once a window holds an item it ends where the next item would have to be waited for, so a
//    quiet interactive pipe (a coprocess, `tail -f`) gets each result as soon as its line is in,
//    while a file or a busy pipe fills whole windows;
//  - an Error reading an item ends the window before it and is thrown by the next call, so
//    everything before a bad line is output first.
#pragma once

#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

#include "tfm/base/error.hpp"

namespace tfm {

template <class T>
class WindowReader {
public:
    // read(out) appends one item to out and returns true, or returns false at the end of the
    // input; ready() says whether the next read would return without waiting. Returns up to
    // `size` items, none once the input has ended.
    template <class Read, class Ready>
    std::vector<T> next(std::size_t size, Read&& read, Ready&& ready) {
        if (pending_) std::rethrow_exception(std::exchange(pending_, nullptr));
        std::vector<T> out;
        try {
            while (!ended_ && out.size() < size && (out.empty() || ready()))
                if (!read(out)) ended_ = true;
        } catch (const Error&) {
            if (out.empty()) throw;
            pending_ = std::current_exception();
        }
        return out;
    }

    // True once read() has said the input is over (and no error waits to be thrown).
    bool done() const { return ended_ && !pending_; }

private:
    std::exception_ptr pending_;  // the error of the item after the last window
    bool ended_ = false;
};

}  // namespace tfm
