// The star-formation model in code units and its OpenMP drivers (the CUDA drivers,
// starform_gpu.hpp, call the same functions of cloud_starform_kern.hpp, katz_kern.hpp and
// star_birth_kern.hpp).
#pragma once

#include <cstddef>

#include "core/active_set.hpp"
#include "core/particle_store.hpp"
#include "starform/cloud_starform_kern.hpp"
#include "starform/katz_kern.hpp"
#include "starform/starform_params.hpp"

namespace mpsph {

struct UnitSystem;

// The kernels' parameters in the run's code units. Throws mpsph::Error for N-body units (the
// thresholds are in K, cm^-3 and Msun/pc^2) and for model none.
struct StarformModel {
  StarformModel(const StarformParams& params, const UnitSystem& units, bool u_integrated);
  StarformKind kind;
  CloudStarformParams clouds{};
  KatzParams katz{};
  double msun_per_mass;   // code mass in Msun
  double yr_per_time;     // code time in yr
  double erg_per_energy;  // code energy in erg
};

struct StarformStats {
  double mass = 0.0;     // stellar mass formed this step [code mass]
  double thermal = 0.0;  // thermal energy of the gas turned into stars [code energy]
  long stars = 0;        // stars formed (in place or asked for)
};

// The children of the last order stage among the stars [begin, end) get their birth record, born
// at `decided_at` (star_birth_kern.hpp finish_spawned_star). Returns how many.
std::size_t finish_spawned_stars(const ParticleView& p, std::size_t begin, std::size_t end,
                                 double decided_at);

// One (sub)step of star formation over the active particles (each at the end of its own step):
// the clouds (models clouds, probabilistic) or the gas (katz). Sums in store order.
StarformStats form_stars(const ParticleView& p, const ActiveSet& active, const StarformModel& m,
                         double tick_len, long step, double time);

// Stellar mass formed in the run so far [code mass]: the initial masses of the type-4 stars and
// the pending requests for stars (star_birth_kern.hpp formed_stellar_mass), summed in store order.
double stellar_mass_formed(const ParticleView& p);

}  // namespace mpsph
