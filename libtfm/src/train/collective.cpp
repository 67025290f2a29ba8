#include "tfm/train/collective.hpp"

#include <cstdlib>
#include <vector>

namespace tfm {

std::size_t launched_ranks() {
    // OpenMPI's mpirun, PMI (MPICH's Hydra, Slurm's srun --mpi=pmi2); under PMIx (srun
    // --mpi=pmix), which sets no size, the Slurm step's task count.
    std::vector<const char*> names = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    if (std::getenv("PMIX_RANK")) names.push_back("SLURM_STEP_NUM_TASKS");
    for (const char* name : names) {
        if (const char* v = std::getenv(name)) {
            char* end = nullptr;
            const unsigned long n = std::strtoul(v, &end, 10);
            if (end != v && *end == '\0' && n >= 1) return n;
        }
    }
    return 1;
}

}  // namespace tfm
