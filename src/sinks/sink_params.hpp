// Parameters of sink particles (PHYSICS.md section 8; docs/sinks.md): the `sinks:` section.
//   sinks: {model: none|bate95, rho_sink, h_acc, r_crit, wake_radius, merge_radius}
// Member initialisers are the defaults. The sinks' gravitational softening is the type-5 entry of
// gravity.softening (six values, one per type; one value sets all six).
#pragma once

#include <string_view>

namespace mpsph {

class Config;
class Schema;

enum class SinkKind { None, Bate95 };

struct SinkParams {
  SinkKind kind = SinkKind::None;
  // Density threshold of creation (code density); 0 = from the resolution at the start of the run
  // (jeans_resolution_density of setups/cloud_scales.hpp: the Jeans mass falls to 2 N_B m_p there,
  // Bate & Burkert 1997; with the EOS sound speed and the largest gas particle mass).
  double rho_sink = 0.0;
  double h_acc = 0.0;        // accretion radius (code length); required for bate95
  double r_crit = 0.0;       // no sink forms within r_crit of an existing sink; 0 = 2 h_acc
  double wake_radius = 3.0;  // block steps: gas within wake_radius h_acc of a sink takes a step
                             // no longer than the sink's (in units of h_acc)
  // Two active sinks closer than merge_radius h_acc and bound as a pair merge (sink_merge_kern.hpp;
  // in units of h_acc); 0 = no merging. Default 1: inside each other's accretion radius, as the
  // FLASH sinks (Federrath et al. 2010).
  double merge_radius = 1.0;
  // Read from the other sections, for the threshold from resolution:
  double sound_speed = 0.0;  // eos.sound_speed (code velocity); 0 for eos.type adiabatic
  int n_neighbours = 0;      // sph.n_neighbours (N_B)

  bool enabled() const { return kind != SinkKind::None; }
  // r_crit with its default resolved.
  double critical_radius() const { return r_crit > 0.0 ? r_crit : 2.0 * h_acc; }
  // The merging radius in code length (0: off).
  double merging_radius() const { return merge_radius * h_acc; }
};

// "none" | "bate95"; any other name throws mpsph::Error listing the valid ones.
SinkKind parse_sink_model(const std::string_view& name);

void add_sink_params(Schema& schema);
// Reads the sinks section (and eos, sph.n_neighbours, gravity.enabled for the checks); throws
// mpsph::Error naming the key when a value is inconsistent.
SinkParams sink_params_from(const Config& cfg);

}  // namespace mpsph
