// Warm -> cold (PHYSICS.md section 5): a gas particle becomes a cloud when T <= T_c, n_H >= n_c
// and div v < 0; each criterion alone blocks it. The thermal energy it takes out of the gas is
// returned for energy.csv's E_cloud_formation.
#include <cmath>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/units.hpp"
#include "multiphase/sticky_clouds.hpp"

using namespace mpsph;

namespace {

const UnitSystem kUnits = UnitSystem::from_cgs(cgs::pc, cgs::Msun, cgs::km_s);

struct Gas {
  double T;      // K
  double n_H;    // cm^-3
  double div_v;  // code units
};

// One gas particle in state g at the end of a step of length dt = 0.01 (u0 = u, no du/dt unless
// given), converted with defaults T_c = 1e4 K, n_c = 0.1 cm^-3.
struct Result {
  double energy;
  ParticleStore s;
};

Result convert(const Gas& g, bool u_integrated, double dudt = 0.0) {
  MultiphaseParams mp;
  mp.kind = MultiphaseKind::StickyClouds;
  const StickyCloudsModel model(mp, kUnits, u_integrated);
  const CloudFormationParams& p = model.formation;
  Result r;
  ParticleStore& s = r.s;
  s.resize(1);
  s.type[0] = kGas;
  s.id[0] = 1;
  s.mass[0] = 3.0;
  s.x_h[0] = 0.7;
  s.u[0] = s.u0[0] = u_from_temperature(p.mu, p.u_to_T, g.T);
  s.dudt0[0] = s.dudt[0] = dudt;
  s.rho[0] = float(g.n_H / (0.7 * p.nH_per_rho));
  s.divv[0] = float(g.div_v);
  s.ti_begin[0] = 0;
  s.ti_end[0] = 1 << 20;
  const double tick_len = 0.01 / double(1 << 20);
  ParticleView v = s.view();
  v.n_gas = 1;
  r.energy = form_clouds(v, ActiveSet{}, p, tick_len).thermal_energy;
  return r;
}

}  // namespace

TEST_CASE("warm gas that is cool, dense and converging becomes a cloud",
          "[multiphase][formation]") {
  const Result r = convert({5000.0, 1.0, -0.5}, true);
  CHECK(r.s.type[0] == kCloud);
  CHECK(r.s.mass[0] == 3.0);  // keeps its mass (and everything else but u)
  CHECK(r.s.x_h[0] == 0.7);
  // It takes m u out of the gas; its u, u0 and du/dt are zeroed (no thermal energy comes back).
  MultiphaseParams mp;
  const StickyCloudsModel model(mp, kUnits, true);
  const double u = u_from_temperature(model.formation.mu, model.formation.u_to_T, 5000.0);
  CHECK(r.energy == Approx(3.0 * u).epsilon(1e-15));
  CHECK(r.s.u[0] == 0.0);
  CHECK(r.s.u0[0] == 0.0);
  CHECK(r.s.dudt[0] == 0.0);
  CHECK(r.s.dudt0[0] == 0.0);
}

TEST_CASE("each warm -> cold criterion alone blocks the conversion", "[multiphase][formation]") {
  const Gas ok{5000.0, 1.0, -0.5};
  SECTION("too warm") {
    const Result r = convert({1.2e4, ok.n_H, ok.div_v}, true);
    CHECK(r.s.type[0] == kGas);
    CHECK(r.energy == 0.0);
  }
  SECTION("too thin") {
    const Result r = convert({ok.T, 0.05, ok.div_v}, true);
    CHECK(r.s.type[0] == kGas);
  }
  SECTION("expanding or static") {
    CHECK(convert({ok.T, ok.n_H, 0.5}, true).s.type[0] == kGas);
    CHECK(convert({ok.T, ok.n_H, 0.0}, true).s.type[0] == kGas);
  }
  SECTION("at the thresholds: T = T_c and n_H = n_c convert (<= and >=)") {
    CHECK(convert({1e4 * (1 - 1e-12), 0.1 * (1 + 1e-6), ok.div_v}, true).s.type[0] == kCloud);
  }
}

TEST_CASE("without a module that integrates u, the conversion reads the corrector's u",
          "[multiphase][formation]") {
  // u0 at 1.05e4 K with du/dt < 0: the predicted u (stored) is above T_c, the corrector's end-of-
  // step u below. dt = 0.01, dudt0 = dudt: u_end = u0 + dt dudt.
  MultiphaseParams mp;
  const StickyCloudsModel model(mp, kUnits, false);
  const double u0 = u_from_temperature(model.formation.mu, model.formation.u_to_T, 1.05e4);
  const double u_target = u_from_temperature(model.formation.mu, model.formation.u_to_T, 9e3);
  const double dudt = (u_target - u0) / 0.01;
  const Result r = convert({1.05e4, 1.0, -0.5}, false, dudt);
  CHECK(r.s.type[0] == kCloud);
  CHECK(r.energy == Approx(3.0 * u_target).epsilon(1e-12));
  // The same particle when u stands for the step's final value (cooling integrated it): too warm.
  CHECK(convert({1.05e4, 1.0, -0.5}, true, dudt).s.type[0] == kGas);
}
