// The processes of one training job and what they do together. This class is the job of one
// process (every call is the identity); MpiCollective (train/mpi_collective.hpp, the tfm_mpi
// library) is the job of the ranks mpirun or Slurm started. The Trainer sums gradients
// through it and the schedule agrees on stopping through it (docs/distributed.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

class Collective {
public:
    virtual ~Collective() = default;

    virtual std::size_t rank() const { return 0; }  // 0 .. size()-1; rank 0 logs, validates and saves
    virtual std::size_t size() const { return 1; }
    virtual std::size_t local_size() const { return 1; }  // ranks on this machine

    // Every rank's data summed, element by element, in the TreeSum order over ranks 0..R-1
    // (tree_sum.hpp); every rank gets the same bits.
    virtual void sum(float* data, std::size_t n) { (void)data, (void)n; }
    virtual void sum(double* data, std::size_t n) { (void)data, (void)n; }

    // The largest of the ranks' values, on every rank.
    virtual std::int64_t max(std::int64_t value) { return value; }

    // Bytes this rank sent and seconds it spent in sum() since the last call (for reports).
    struct Traffic {
        double bytes = 0, seconds = 0;
    };
    virtual Traffic take_traffic() { return {}; }
};

// The ranks an MPI launcher (mpirun, srun) started this process among, from the environment
// it sets (OpenMPI, PMI, PMIx); 1 when none did.
std::size_t launched_ranks();

}  // namespace tfm
