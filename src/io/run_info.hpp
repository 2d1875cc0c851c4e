// `mpsph info RUNDIR`: a human summary of a run directory.
#pragma once

#include <string>

namespace mpsph {

// What ran (config_resolved.yaml by section; the requested device, since the backend that ran is
// not recorded), N by type (last snapshot), how far (energy.csv's last row, last snapshot,
// checkpoint), wall time and particle updates per second (timing.txt), energy error (energy.csv),
// the stage timing table and the files in the directory. Parts whose file is missing are reported
// as missing. Throws mpsph::Error when `dir` holds none of a run's files or a file is unreadable.
std::string run_info(const std::string& dir);

}  // namespace mpsph
