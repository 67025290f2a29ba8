// The ranks of an MPI job (mpirun, srun) as a Collective. Lives in its own library, tfm_mpi,
// built when CMake finds MPI (Debian: libopenmpi-dev), so that nothing else links MPI.
//
// sum() is a reduce-scatter and an all-gather (MPI_Alltoall, MPI_Allgather: the traffic of a
// ring allreduce, 2 (R-1)/R of the data per rank), with the reduce step done here in
// TreeSum's order rather than in whatever order the MPI library picks: the sums are the same
// bits for any number of ranks (docs/distributed.md). Large buffers go in buckets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tfm/train/collective.hpp"

namespace tfm {

class MpiCollective : public Collective {
public:
    // MPI_Init_thread (only the calling thread talks to MPI); the destructor finalizes.
    MpiCollective(int* argc, char*** argv);
    ~MpiCollective() override;
    MpiCollective(const MpiCollective&) = delete;
    MpiCollective& operator=(const MpiCollective&) = delete;

    std::size_t rank() const override { return rank_; }
    std::size_t size() const override { return size_; }
    std::size_t local_size() const override { return local_size_; }
    void sum(float* data, std::size_t n) override;
    void sum(double* data, std::size_t n) override;
    std::int64_t max(std::int64_t value) override;
    Traffic take_traffic() override;

    // Ends every rank of the job now with this exit status (after an error on this one).
    [[noreturn]] void abort(int status);

private:
    template <class T>
    void sum_buckets(T* data, std::size_t n);
    std::size_t rank_ = 0, size_ = 1, local_size_ = 1;
    std::vector<unsigned char> send_, recv_;  // one bucket: R segments each way
    Traffic traffic_;
};

}  // namespace tfm
