// Runs setups/sedov.yaml and measures its shock radius the way tools/plot_sedov.py does (same
// definitions; the tool's docstring explains them):
//   R_half: where the density binned in shells of half the mean particle spacing first falls
//   below (rho_peak + rho0)/2 outside its peak, interpolated linearly between shell centres;
//   reference: the same R_half of the exact density smoothed with each particle's own kernel
//   (SedovExact::smoothed_density at the particle's r and h), binned the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"
#include "setups/sedov_exact.hpp"

namespace mpsph::test {

struct SedovResult {
  double t = 0;
  double r_s = 0;             // self-similar shock radius
  double r_half = 0;          // measured on the SPH densities
  double r_half_ref = 0;      // measured on the kernel-smoothed exact densities
  double rho_peak = 0;        // peak of the binned SPH density
  double inner_mass = 0;      // mass inside R_s/2, in units of the swept mass rho0 (4 pi/3) R_s^3
  double max_rel_energy = 0;  // max |dE/E0| over energy.csv
  double updates = 0;         // particle updates (force evaluations)
  double error() const { return r_half / r_half_ref - 1; }
  // One line for the test log: the measurement, the energy error, the cavity mass and the work.
  std::string describe() const {
    std::ostringstream o;
    o << "R_s " << r_s << ", R_half " << r_half << " vs smoothed exact " << r_half_ref << " ("
      << 100 * error() << "%), max |dE/E0| " << max_rel_energy << ", mass inside R_s/2 "
      << inner_mass << ", updates " << updates;
    return o.str();
  }
};

// Half-maximum radius of a binned profile (bin centres c, NaN for empty shells).
inline double half_max_radius(const std::vector<double>& c, const std::vector<double>& rho,
                              double rho0, double* peak = nullptr) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < rho.size(); ++i)
    if (!std::isnan(rho[i]) && (std::isnan(rho[k]) || rho[i] > rho[k])) k = i;
  if (peak) *peak = rho[k];
  const double half = 0.5 * (rho[k] + rho0);
  std::size_t j = k + 1;
  while (j < rho.size() && !(rho[j] < half)) ++j;
  if (j == rho.size()) return NAN;
  const double w = (rho[j - 1] - half) / (rho[j - 1] - rho[j]);
  return c[j - 1] + w * (c[j] - c[j - 1]);
}

// Mean of y over particles in shells [k width, (k+1) width) out to r_max (NaN where empty).
inline std::vector<double> binned(const std::vector<double>& r, const std::vector<double>& y,
                                  double width, double r_max, std::vector<double>* centres) {
  const std::size_t nb = std::size_t(std::ceil(r_max / width));
  std::vector<double> sum(nb, 0.0), count(nb, 0.0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto k = std::size_t(r[i] / width);
    if (k < nb) sum[k] += y[i], count[k] += 1;
  }
  centres->resize(nb);
  for (std::size_t k = 0; k < nb; ++k) {
    (*centres)[k] = (k + 0.5) * width;
    sum[k] = count[k] > 0 ? sum[k] / count[k] : NAN;
  }
  return sum;
}

// Runs setups/sedov.yaml (E = rho0 = L = 1, gamma = 5/3, block steps, t_end 0.05) with the
// overrides into build/test_output/<name> and measures the last snapshot.
inline SedovResult run_sedov(const std::string& name, int n_side, int glass_n_side,
                             int limiter_factor) {
  const std::string out = scratch_dir(name);
  RunOptions o;
  o.config_path = std::string(MPSPH_SOURCE_DIR) + "/setups/sedov.yaml";
  o.output_dir = out;
  o.quiet = true;
  o.overrides = {"setup.n_side=" + std::to_string(n_side),
                 "setup.glass_n_side=" + std::to_string(glass_n_side),
                 "timestep.limiter_factor=" + std::to_string(limiter_factor),
                 "run.snapshot_times=[]"};
  Simulation sim(o);
  SedovResult res;
  if (!sim.run()) return res;
  const double energy = 1.0, rho0 = 1.0, box = 1.0, gamma = 5.0 / 3.0;
  const ParticleStore& s = sim.particles();
  res.t = sim.time();
  const SedovExact exact(gamma);
  res.r_s = exact.shock_radius(energy, rho0, res.t);
  const Vec3d centre{0.5 * box, 0.5 * box, 0.5 * box};
  std::vector<double> r(s.n_gas()), rho(s.n_gas()), ref(s.n_gas());
  double inner = 0;
  for (std::size_t i = 0; i < s.n_gas(); ++i) {
    r[i] = norm(s.pos[i] - centre);
    rho[i] = s.rho[i];
    ref[i] = exact.smoothed_density(r[i], s.h[i], energy, rho0, res.t);
    if (r[i] < 0.5 * res.r_s) inner += s.mass[i];
  }
  res.inner_mass = inner / (rho0 * 4.0 / 3.0 * 3.14159265358979323846 * std::pow(res.r_s, 3));
  const double width = 0.5 * box / n_side;
  std::vector<double> c;
  res.r_half = half_max_radius(c, binned(r, rho, width, 0.5 * box, &c), rho0, &res.rho_peak);
  res.r_half_ref = half_max_radius(c, binned(r, ref, width, 0.5 * box, &c), rho0);
  for (const EnergyRow& row : read_energy(out))
    res.max_rel_energy = std::max(res.max_rel_energy, std::fabs(row.rel));
  std::ifstream timing(out + "/timing.txt");
  for (std::string line; std::getline(timing, line);)
    if (line.rfind("particle updates: ", 0) == 0) res.updates = std::stod(line.substr(18));
  return res;
}

}  // namespace mpsph::test
