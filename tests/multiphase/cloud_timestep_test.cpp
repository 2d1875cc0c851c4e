// The cold phase's time-step criteria (multiphase/cloud_timestep_kern.hpp): their values on
// constructed cases, the hand-over from the cold-phase stage to the time-step stage
// (cloud_step_rate -> dt_limit, then cleared), and that a run's step follows them under the global
// and the block scheme (the sticky-cloud box with viscosity among the clouds, no gas, no gravity:
// without the criterion the step is timestep.dt_max).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "multiphase/cloud_timestep_kern.hpp"
#include "run/simulation.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

TEST_CASE("cloud time-step criteria: values, off switch, larger rate wins",
          "[multiphase][timestep]") {
  // dt <= C m / |mdot|: m = 100, mdot = -4 (evaporation) or +4 (condensation), C = 0.1 -> 2.5.
  CHECK(1.0 / evaporation_step_rate(100.0, -4.0, 0.1) == Approx(2.5).epsilon(1e-15));
  CHECK(1.0 / evaporation_step_rate(100.0, 4.0, 0.1) == Approx(2.5).epsilon(1e-15));
  CHECK(evaporation_step_rate(100.0, -4.0, 0.0) == 0.0);  // off
  CHECK(evaporation_step_rate(100.0, 0.0, 0.1) == 0.0);   // no exchange
  CHECK(evaporation_step_rate(0.0, -4.0, 0.1) == 0.0);    // no mass left
  // dt <= C h / (c + v_max): h = 20, c = 5, v_max = 15, C = 0.1 -> 0.1.
  CHECK(1.0 / viscosity_step_rate(20.0, 5.0, 15.0, 0.1) == Approx(0.1).epsilon(1e-15));
  CHECK(viscosity_step_rate(20.0, 5.0, 15.0, 0.0) == 0.0);
  CHECK(viscosity_step_rate(0.0, 5.0, 15.0, 0.1) == 0.0);  // no smoothing length (one cloud)

  ParticleStore s;
  s.resize(3);
  s.type[0] = kCloud;
  s.type[1] = kCloud;
  s.type[2] = kGas;  // a cloud that turned into gas in the step
  for (std::size_t i = 0; i < 3; ++i) s.dt_limit[i] = 1.0;
  const ParticleView v = s.view();
  record_cloud_step_rate(v, 0, 4.0);
  record_cloud_step_rate(v, 0, 2.0);  // the larger rate (shorter step) stays
  record_cloud_step_rate(v, 1, 0.5);  // a limit longer than the step's dt_limit
  record_cloud_step_rate(v, 2, 8.0);
  CHECK(s.cloud_step_rate[0] == 4.0);
  for (std::size_t i = 0; i < 3; ++i) limit_cloud_step(v, i);
  CHECK(s.dt_limit[0] == 0.25);
  CHECK(s.dt_limit[1] == 1.0);
  CHECK(s.dt_limit[2] == 1.0);  // not a cloud any more: no limit
  for (std::size_t i = 0; i < 3; ++i) CHECK(s.cloud_step_rate[i] == 0.0);  // all cleared
  limit_cloud_step(v, 0);  // a second call without a new rate changes nothing
  CHECK(s.dt_limit[0] == 0.25);
}

namespace {

// 400 clouds with viscosity among them (k = 16, sigma_c = 2 km/s): h ~ 16 pc, c + |v_ij| ~ 10-20
// km/s, so C = 0.02 asks for steps of ~0.02-0.03 code time, below dt_max = 0.1.
const char* kViscousBox = R"(
run: {t_end: 10.0, max_steps: 12}
units: {system: physical, length: pc, mass: Msun, velocity: km/s}
setup: {type: sticky_clouds, n_clouds: 400, box_size: 150, cloud_mass: 1.0e4, sigma_v: 5, seed: 3}
gravity: {enabled: false}
timestep: {dt_max: 0.1}
multiphase: {model: sticky_clouds, cloud_interaction: viscosity, viscosity_neighbours: 16,
             sigma_c_kms: 2}
)";

struct RunEnd {
  double time;
  long steps;
};

RunEnd run_box(const std::string& name, const std::vector<std::string>& set) {
  const std::string dir = test::scratch_dir(name);
  Simulation sim(test::run_options(dir, kViscousBox, set));
  sim.run();
  return {sim.time(), sim.step_count()};
}

}  // namespace

TEST_CASE("the clouds' viscosity criterion sets the step of a run, global and block scheme",
          "[multiphase][timestep]") {
  // Without the criterion nothing but dt_max limits the clouds: 12 steps of 0.1.
  const RunEnd off = run_box("cloud_steps_off", {"multiphase.viscosity_courant=0"});
  REQUIRE(off.steps == 12);
  CHECK(off.time == Approx(1.2).epsilon(1e-12));
  // With it the first step is dt_max (no rate is known before the first cold-phase stage), every
  // later one the criterion's, below 0.05.
  for (const char* scheme : {"global", "block"}) {
    const RunEnd on =
        run_box(std::string("cloud_steps_") + scheme,
                {"multiphase.viscosity_courant=0.02", std::string("timestep.scheme=") + scheme});
    std::printf("viscosity criterion C = 0.02, %s scheme: %ld steps reach t = %.4f\n", scheme,
                on.steps, on.time);
    CHECK(on.steps >= 12);
    CHECK(on.time > 0.1);
    CHECK(on.time < 0.1 + double(on.steps - 1) * 0.05);
  }
}
