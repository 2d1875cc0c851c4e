// `mpsph info`: a human summary of a snapshot file.
#pragma once

#include <string>

namespace mpsph {

// File, code, time, units (cgs factors or N-body), box, per particle type the count and mass, and
// for every dataset its shape, type, min / max / mean and unit. Works on any GADGET-layout HDF5
// file (missing parts are reported as such). Throws mpsph::Error when the file cannot be read.
std::string snapshot_info(const std::string& path);

}  // namespace mpsph
