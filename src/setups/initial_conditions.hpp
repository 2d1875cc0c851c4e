// Chooses and runs the initial-condition generator named by `setup.type` (or reads an HDF5 file).
#pragma once

#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

class Config;
class Schema;

struct InitialState {
  ParticleStore particles;  // sorted gas first
  Box box;
  double time = 0.0;
  std::string file;                   // setup.type = file: the HDF5 file read ("" for generators)
  std::vector<std::string> datasets;  // the particle datasets that file held
  std::vector<std::string> notes;     // lines describing the generated setup, logged at start
  // A part of a setup made in parts whose whole has zero total momentum (the disk galaxy): the
  // driver removes the mean velocity of all parts (make_initial_state removes it itself).
  bool zero_momentum = false;
};

void add_setup_params(Schema& schema);
InitialState make_initial_state(const Config& cfg);
// Whether the setup can make its particles in parts, each rank its own (setup.type evrard,
// disk_galaxy, and file: each rank reads its rows of the file): a run across ranks then never
// holds all of them in one process. make_initial_state_part(cfg, r, P) for r < P gives
// make_initial_state(cfg)'s particles (each part sorted by type), box and time exactly - the
// disk galaxy's velocities before its momentum is removed (zero_momentum; the removal's sums then
// round in another order).
bool made_in_parts(const Config& cfg);
InitialState make_initial_state_part(const Config& cfg, std::size_t part, std::size_t parts);

}  // namespace mpsph
