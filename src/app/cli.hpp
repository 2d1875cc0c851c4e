// The command line shared by `mpsph` (app/main.cpp: run, ics, info, params, ssp) and `mpsph-mpi`
// (app/main_mpi.cpp: run across MPI ranks, docs/mpi.md). Returns the exit code: 0 success, 1
// error, 2 usage error (and, across ranks, a feature not supported there), 3 stopped early, 4 the
// run went bad.
#pragma once

namespace mpsph {

class Ranks;

// `ranks`: null for the single-process program; the MPI ranks for mpsph-mpi (only `run`).
int cli_main(int argc, char** argv, const Ranks* ranks);

}  // namespace mpsph
