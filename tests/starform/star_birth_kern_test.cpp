// The birth of a star (star_birth_kern.hpp): its metallicity from O and Fe, the probability of a
// step, and which stars get their record after the order stage made them.
#include "starform/star_birth_kern.hpp"

#include <cmath>

#include "catch.hpp"
#include "starform_test_support.hpp"

using namespace mpsph;

TEST_CASE("birth metallicity: solar O and Fe give the solar Z, and it is linear",
          "[starform][unit]") {
  CHECK(birth_metallicity(kSolarO, kSolarFe) == Approx(kSolarZ).epsilon(1e-14));
  CHECK(birth_metallicity(0.0, 0.0) == 0.0);
  CHECK(birth_metallicity(0.1 * kSolarO, 0.1 * kSolarFe) == Approx(0.1 * kSolarZ).epsilon(1e-14));
}

TEST_CASE("event probability is 1 - exp(-x), accurate for small x", "[starform][unit]") {
  CHECK(event_probability(0.0) == 0.0);
  CHECK(event_probability(1e-12) == Approx(1e-12).epsilon(1e-11));
  CHECK(event_probability(1.0) == Approx(1.0 - std::exp(-1.0)).epsilon(1e-15));
  CHECK(event_probability(1e300) == 1.0);
}

TEST_CASE("a spawned star gets its record once, and other stars are left alone", "[starform][unit]") {
  ParticleStore s = test::cloud_box(4, 100.0);
  s.type[0] = kNewStar;  // a child of the order stage: initial mass 0
  s.initial_mass[0] = 0.0;
  s.type[1] = kNewStar;  // a star with its record
  s.initial_mass[1] = 250.0;
  s.birth_time[1] = 1.5;
  s.type[2] = kOldStar;  // initial stars are not touched
  s.initial_mass[2] = 0.0;
  s.type[3] = kCloud;
  ParticleView v = s.view();
  for (std::size_t i = 0; i < 4; ++i) CHECK(finish_spawned_star(v, i, 3.25) == (i == 0));
  CHECK(s.birth_time[0] == 3.25);
  CHECK(s.initial_mass[0] == s.mass[0]);
  CHECK(s.birth_z[0] == birth_metallicity(s.z_o[0], s.z_fe[0]));
  CHECK(s.birth_time[1] == 1.5);
  CHECK(s.initial_mass[1] == 250.0);
  CHECK(s.initial_mass[2] == 0.0);
  CHECK(s.birth_time[3] == 0.0);
  // Formed mass: the star's initial mass, the children asked for.
  s.spawn_mass[3] = 7.0;
  s.spawn_type[3] = kNewStar;
  CHECK(formed_stellar_mass(v, 0) == s.mass[0]);
  CHECK(formed_stellar_mass(v, 1) == 250.0);
  CHECK(formed_stellar_mass(v, 2) == 0.0);
  CHECK(formed_stellar_mass(v, 3) == 7.0);
}
