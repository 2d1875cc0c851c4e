// energy.csv on restart: a run killed after its last checkpoint has appended rows for steps that
// the restarted run computes again, and possibly a last row cut short. The restart keeps the
// header and the complete rows up to the checkpoint's step, so that the file of a restarted run
// is the file of an uninterrupted one.
#pragma once

#include <string>

namespace mpsph {

// The comment and column lines of `text` (energy.csv) and its complete rows (ending in '\n') whose
// step (first column) is <= `step`, in their order.
std::string energy_csv_up_to_step(const std::string& text, long step);

// Rewrites the file at `path` (if it exists) as energy_csv_up_to_step(its text, step), the durable
// way (io/durable_file.hpp). Returns false when there is no such file. Throws mpsph::Error when it
// cannot be read or written.
bool trim_energy_csv(const std::string& path, long step);

}  // namespace mpsph
