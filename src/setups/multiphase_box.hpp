// Multiphase box: hot and warm gas in a periodic box (the gas box's cubic lattice, one density),
// the warm gas in n_clumps spheres of radius clump_radius at random centres. The warm clumps are
// under-pressured by T_hot / T_warm: the hot gas compresses them (div v < 0), and warm gas at
// T <= T_c and n_H >= n_c turns into cold clouds (multiphase.model sticky_clouds), which the hot
// gas then evaporates (Cowie & McKee 1977) and drags, while cooling acts on both gas phases
// (setups/multiphase_box.yaml, docs/multiphase.md).
#pragma once

#include <cstdint>

#include "setups/gas_box.hpp"

namespace mpsph {

class Config;
class Schema;
class CoolingModel;

struct MultiphaseBoxParams : GasBoxParams {
  double warm_temperature = 8000.0;  // K, inside the clumps (temperature: the hot gas)
  int n_clumps = 8;
  double clump_radius = 25.0;  // code length
  uint64_t seed = 1;           // clump centres (counter-based random numbers, core/rng.hpp)
};

using MultiphaseBoxSetup = GasBox;

// The gas box at T = temperature, its particles within clump_radius (nearest image) of a clump
// centre at warm_temperature; u from T with the cooling model's mu.
MultiphaseBoxSetup make_multiphase_box(const MultiphaseBoxParams& p, const CoolingModel& model);

void add_multiphase_box_params(Schema& schema);
MultiphaseBoxParams multiphase_box_params_from(const Config& cfg);

}  // namespace mpsph
