// Parameters of sink particles (PHYSICS.md section 8; docs/sinks.md): the `sinks:` section.
//   sinks: {model: none|bate95, rho_sink, h_acc, r_crit, wake_radius}
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
  // (rho_sink_from_resolution, with the EOS sound speed and the largest gas particle mass).
  double rho_sink = 0.0;
  double h_acc = 0.0;        // accretion radius (code length); required for bate95
  double r_crit = 0.0;       // no sink forms within r_crit of an existing sink; 0 = 2 h_acc
  double wake_radius = 3.0;  // block steps: gas within wake_radius h_acc of a sink takes a step
                             // no longer than the sink's (in units of h_acc)
  // Read from the other sections, for the threshold from resolution:
  double sound_speed = 0.0;  // eos.sound_speed (code velocity); 0 for eos.type adiabatic
  int n_neighbours = 0;      // sph.n_neighbours (N_B)

  bool enabled() const { return kind != SinkKind::None; }
  // r_crit with its default resolved.
  double critical_radius() const { return r_crit > 0.0 ? r_crit : 2.0 * h_acc; }
};

// "none" | "bate95"; any other name throws mpsph::Error listing the valid ones.
SinkKind parse_sink_model(const std::string_view& name);

void add_sink_params(Schema& schema);
// Reads the sinks section (and eos, sph.n_neighbours, gravity.enabled for the checks); throws
// mpsph::Error naming the key when a value is inconsistent.
SinkParams sink_params_from(const Config& cfg);

// The density at which the Jeans mass M_J = pi^(5/2) c_s^3 / (6 G^(3/2) rho^(1/2)) (the mass of a
// sphere of diameter lambda_J = (pi c_s^2/(G rho))^(1/2)) falls to the resolution limit
// 2 N_B m_p of Bate & Burkert (1997, MNRAS 288, 1060):
//   rho_sink = pi^5 c_s^6 / (36 G^3 (2 N_B m_p)^2).
double rho_sink_from_resolution(double sound_speed, double G, int n_neighbours,
                                double particle_mass);

}  // namespace mpsph
