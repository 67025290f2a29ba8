#include "tfm/train/collective.hpp"

#include <cstdlib>
#include <initializer_list>

namespace tfm {

std::size_t launched_ranks() {
    // OpenMPI's mpirun, PMI (MPICH's Hydra, Slurm's srun --mpi=pmi2); under PMIx (srun
    // --mpi=pmix) the step's task count.
    const bool pmix = std::getenv("PMIX_RANK") != nullptr;
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", pmix ? "SLURM_STEP_NUM_TASKS" : "OMPI_COMM_WORLD_SIZE"}) {
        if (const char* v = std::getenv(name)) {
            char* end = nullptr;
            const unsigned long n = std::strtoul(v, &end, 10);
            if (end != v && *end == '\0' && n >= 1) return n;
        }
    }
    return 1;
}

}  // namespace tfm
