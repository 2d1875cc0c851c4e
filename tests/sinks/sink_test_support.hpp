// Shared pieces of the sink tests: the totals they conserve (mass, linear momentum and angular
// momentum (orbital + sink spin) about the origin, with the sums of their magnitudes as the scales
// of relative errors), the kernel parameters of the creation tests, the config of the collapsing
// sphere the sink runs share, and the rows of the sink CSV files.
#pragma once

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/particle_store.hpp"
#include "core/vec3.hpp"
#include "sinks/sink_kern.hpp"

namespace mpsph::test {

struct SinkTotals {
  double mass = 0, pabs = 0, labs = 0;
  Vec3d p{0, 0, 0}, l{0, 0, 0};
};

inline SinkTotals sink_totals(const ParticleStore& s) {
  SinkTotals t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    t.mass += s.mass[i];
    t.p += s.mass[i] * s.vel[i];
    t.pabs += s.mass[i] * norm(s.vel[i]);
    const Vec3d l = s.mass[i] * cross(s.pos[i], s.vel[i]) + s.spin[i];
    t.l += l;
    t.labs += norm(l);
  }
  return t;
}

// The creation parameters of the kernel tests: rho_sink 1, G 1, gas softened (Plummer) over 0.01.
inline SinkKernParams sink_kern_params(double h_acc, double r_crit) {
  SinkKernParams p{};
  p.rho_sink = 1.0;
  p.h_acc = h_acc;
  p.r_crit = r_crit;
  p.G = 1.0;
  p.eps_gas = 0.01;
  p.kernel = SofteningKernel::Plummer;
  return p;
}

// The config sections of the collapsing isothermal sphere of the sink runs (sink_validation.cpp,
// sinks_gpu_test.cpp, sink_merge_test_support.hpp): N-body units, cold isothermal gas, direct
// gravity, bate95 sinks. Each run adds its own run:, setup: and timestep: sections.
inline std::string sink_sphere_sections() {
  return "units: {G: 1}\n"
         "eos: {type: isothermal, sound_speed: 0.15}\n"
         "sph: {n_neighbours: 50}\n"
         "gravity: {method: direct, softening: [0.01]}\n"
         "sinks: {model: bate95, h_acc: 0.05}\n";
}

// The data rows of a CSV file (comment and column lines skipped), as numbers.
inline std::vector<std::vector<double>> csv_rows(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<double>> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("time", 0) == 0) continue;
    std::vector<double> c;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) c.push_back(std::stod(cell));
    out.push_back(c);
  }
  return out;
}

}  // namespace mpsph::test
