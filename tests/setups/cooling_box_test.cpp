// The cooling box initial conditions: density, temperature, composition, box.
#include "setups/cooling_box.hpp"

#include <cmath>

#include "catch.hpp"
#include "cooling/cooling.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"

using namespace mpsph;

TEST_CASE("cooling box: uniform gas at the requested n_H, T and [Fe/H]", "[setups][cooling_box]") {
  const UnitSystem units = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  CoolingParams cp;  // model none: the setup needs only mu(T) and the units
  const CoolingModel model(cp, units);
  CoolingBoxParams p;
  p.n_side = 4;
  p.box_size = 0.5;
  p.n_H = 0.3;
  p.temperature = 2e6;
  p.feh = -0.7;
  p.hydrogen_fraction = 0.75;
  const CoolingBoxSetup box = make_cooling_box(p, model);
  const ParticleStore& s = box.particles;
  REQUIRE(s.size() == 64);
  CHECK(box.box.periodic);
  CHECK(box.box.size.x == 0.5);
  const double rho_unit = units.mass_cgs / std::pow(units.length_cgs, 3);
  double mass = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    mass += s.mass[i];
    CHECK(s.type[i] == kGas);
    // n_H = X_H rho / m_H back in cgs; rho is a float field (6e-8).
    CHECK(s.x_h[i] * s.rho[i] * rho_unit / cgs::m_H == Approx(0.3).epsilon(1e-7));
    CHECK(model.temperature(s.u[i]) == Approx(2e6).epsilon(1e-12));
    CHECK(feh_from_mass_fractions(s.x_h[i], s.z_fe[i]) == Approx(-0.7).epsilon(1e-12));
    CHECK(s.z_o[i] / s.z_fe[i] == Approx(kSolarOToH / kSolarFeToH).epsilon(1e-12));
    CHECK(s.pos[i].x > 0.0);
    CHECK(s.pos[i].x < 0.5);
  }
  // Total mass = rho V: the density the particles stand for.
  CHECK(mass == Approx(double(s.rho[0]) * 0.125).epsilon(1e-7));
  // Metal-free gas carries no iron or oxygen.
  p.feh = -HUGE_VAL;
  const ParticleStore z = make_cooling_box(p, model).particles;
  CHECK(z.z_fe[0] == 0.0);
  CHECK(z.z_o[0] == 0.0);
  // Physical units are needed to turn n_H and T into code values.
  CHECK_THROWS_AS(make_cooling_box(p, CoolingModel(cp, UnitSystem::nbody_units())), Error);
}
