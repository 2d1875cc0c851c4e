// Parameters of radiative cooling (PHYSICS.md section 4); member initialisers are the defaults.
//   cooling: {model: none|sd93, table_dir, metals: fixed|particles, metallicity, hydrogen_fraction,
//             floor_K, heating, tolerance, mu_model: variable|constant, mu}
#pragma once

#include <string>

namespace mpsph {

class Config;
class Schema;

enum class CoolingKind { None, Sd93 };
enum class MetalSource { Fixed, Particles };

struct CoolingParams {
  CoolingKind kind = CoolingKind::None;
  std::string table_dir;  // directory of the SD93 CIE files; "" = search the defaults
  MetalSource metals = MetalSource::Fixed;
  double metallicity = 0.0;        // [Fe/H] of every particle (fixed) or of particles without
                                   // metal fields (x_h = 0); below -3 the rate blends linearly in
                                   // Z to the metal-free table, so -99 is metal-free
  double hydrogen_fraction = 0.7;  // X_H for n_H = X_H rho/m_H where particles carry none
  double floor_K = 10.0;           // temperature floor (K)
  double heating = 0.0;            // Gamma per hydrogen atom (erg/s); 2e-26 in Koyama & Inutsuka
                                   // (2002); 0 = off
  double tolerance = 1e-3;         // local error per implicit substep (relative, in u)
  bool mu_variable = true;         // mu(T): 1.22 below 8000 K, 0.59 above 1.5e4 K, linear between
  double mu = 0.59;                // constant mean molecular weight (mu_variable = false)
  double gamma = 5.0 / 3.0;        // adiabatic index of u = k T/((gamma-1) mu m_H): eos.gamma
};

// "none" | "sd93"; any other name throws mpsph::Error listing the valid ones (STYLE.md item 8).
CoolingKind parse_cooling_model(const std::string& name);

void add_cooling_params(Schema& schema);
// Reads the cooling section (and eos.gamma).
CoolingParams cooling_params_from(const Config& cfg);

}  // namespace mpsph
