// SSP feedback across the MPI ranks of `mpsph-mpi` (docs/mpi.md, "Physics modules across ranks"):
// apply_feedback (feedback.hpp) with the stars' gas neighbours on any rank. Every rank finds, for
// its releasing stars, the radius that holds their N_B + 1 nearest gas particles of its own (the
// other ranks' gas can only come closer), fetches the other ranks' gas within it
// (ModuleRanks::fetch), and weighs its stars' N_B nearest among its gas and those copies - the
// neighbours and weights of one process, which depend on the distances and ids alone. The shares
// for remote gas go to their owners (ModuleRanks::send_to_owners), and every rank applies to each
// of its receivers all its shares in one process's order of the stars (type, order key, id), so
// the receivers' states are one process's bit for bit (tests/parallel/module_ranks_mpi.cpp).
#pragma once

#include "core/module_ranks.hpp"
#include "feedback/feedback.hpp"

namespace mpsph {

// Collective; `p` holds this rank's particles, `a` its active ones.
FeedbackStepResult apply_feedback_across_ranks(const ParticleView& p, const ActiveSet& a,
                                               const Box& box, const FeedbackKernParams& kp,
                                               const FeedbackTiming& ft, double time,
                                               double tick_len, const ModuleRanks& ranks);

}  // namespace mpsph
