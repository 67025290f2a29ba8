// Sums in one fixed order: a binary tree over the values' positions, whatever machine or rank
// holds them. Values arrive left to right; two neighbours of equal size merge as soon as both
// exist (left += right), and at the end what is left merges from the right. For 4 values:
// (v0 + v1) + (v2 + v3).
//
// Why it matters (docs/distributed.md): a training update sums the gradients of its batch's
// parts. When R ranks each hold P/R consecutive parts and P/R is a power of two, every rank's
// block is a node of this tree, and the tree over the R ranks' sums is the rest of it: one
// process summing all P parts and R ranks summing theirs, then each other's, add the same
// numbers in the same order, and floating-point sums come out bit for bit the same.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace tfm {

// merge(T& left, T&& right) folds right into left.
template <class T, class Merge>
class TreeSum {
public:
    explicit TreeSum(Merge merge) : merge_(std::move(merge)) {}

    void push(T value) {
        std::size_t size = 1;
        while (!stack_.empty() && stack_.back().first == size) {
            T left = std::move(stack_.back().second);
            stack_.pop_back();
            merge_(left, std::move(value));
            value = std::move(left);
            size *= 2;
        }
        stack_.emplace_back(size, std::move(value));
    }

    bool empty() const { return stack_.empty(); }

    // The sum of everything pushed (at least one value).
    T result() {
        T right = std::move(stack_.back().second);
        stack_.pop_back();
        while (!stack_.empty()) {
            T left = std::move(stack_.back().second);
            stack_.pop_back();
            merge_(left, std::move(right));
            right = std::move(left);
        }
        return right;
    }

private:
    Merge merge_;
    std::vector<std::pair<std::size_t, T>> stack_;  // (values summed, their sum), sizes decreasing
};

template <class T, class Merge>
TreeSum<T, Merge> tree_sum(Merge merge) {
    return TreeSum<T, Merge>(std::move(merge));
}

}  // namespace tfm
