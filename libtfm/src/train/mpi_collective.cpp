#include "tfm/train/mpi_collective.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "tfm/base/error.hpp"
#include "tfm/train/tree_sum.hpp"

namespace tfm {

namespace {

// Elements per bucket: 16 MiB of floats, so that scratch stays small next to a gradient.
constexpr std::size_t kBucketBytes = std::size_t(16) << 20;

template <class T>
MPI_Datatype mpi_type() {
    return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

}  // namespace

MpiCollective::MpiCollective(int* argc, char*** argv) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw Error("MPI_Init_thread failed");
    int r = 0, s = 1, l = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &l);
    MPI_Comm_free(&local);
    rank_ = std::size_t(r), size_ = std::size_t(s), local_size_ = std::size_t(l);
}

MpiCollective::~MpiCollective() { MPI_Finalize(); }

void MpiCollective::abort(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; this only satisfies [[noreturn]]
}

template <class T>
void MpiCollective::sum_buckets(T* data, std::size_t n) {
    if (size_ == 1 || n == 0) return;
    const auto start = std::chrono::steady_clock::now();
    const std::size_t ranks = size_;
    const std::size_t bucket = std::max<std::size_t>(kBucketBytes / sizeof(T) / ranks, 1) * ranks;
    for (std::size_t off = 0; off < n; off += bucket) {
        const std::size_t len = std::min(bucket, n - off);
        const std::size_t seg = (len + ranks - 1) / ranks;  // elements of each rank's segment
        send_.resize(seg * ranks * sizeof(T));
        recv_.resize(seg * ranks * sizeof(T));
        T* send = reinterpret_cast<T*>(send_.data());
        T* recv = reinterpret_cast<T*>(recv_.data());
        std::memcpy(send, data + off, len * sizeof(T));
        std::fill(send + len, send + seg * ranks, T(0));
        // Segment j of every rank's bucket goes to rank j: recv holds this rank's segment as
        // ranks 0..R-1 have it, summed here in the tree order.
        MPI_Alltoall(send, int(seg), mpi_type<T>(), recv, int(seg), mpi_type<T>(), MPI_COMM_WORLD);
        auto tree = tree_sum<T*>([seg](T*& left, T*&& right) {
            for (std::size_t i = 0; i < seg; ++i) left[i] += right[i];
        });
        for (std::size_t j = 0; j < ranks; ++j) tree.push(recv + j * seg);
        T* mine = tree.result();
        MPI_Allgather(mine, int(seg), mpi_type<T>(), send, int(seg), mpi_type<T>(), MPI_COMM_WORLD);
        std::memcpy(data + off, send, len * sizeof(T));
        traffic_.bytes += 2.0 * double(ranks - 1) * double(seg * sizeof(T));
    }
    traffic_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void MpiCollective::sum(float* data, std::size_t n) { sum_buckets(data, n); }
void MpiCollective::sum(double* data, std::size_t n) { sum_buckets(data, n); }

std::int64_t MpiCollective::max(std::int64_t value) {
    std::int64_t out = value;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

Collective::Traffic MpiCollective::take_traffic() {
    Traffic t = traffic_;
    traffic_ = {};
    return t;
}

}  // namespace tfm
