// The ranks of MPI_COMM_WORLD for the simulation driver (run/ranks.hpp), for `mpsph-mpi`
// (app/main_mpi.cpp). MPI must be initialised before and finalised after.
#pragma once

#include <memory>

#include "run/ranks.hpp"

namespace mpsph {

std::unique_ptr<Ranks> make_mpi_ranks();

}  // namespace mpsph
