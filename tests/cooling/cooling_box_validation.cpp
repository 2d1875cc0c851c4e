// The cooling box (src/setups/cooling_box) evolved by apply_cooling with steps from 0.001 to 100
// cooling times, against the independent fine-step integration of cooling_reference.hpp.
// Writes the curves to <build>/cooling_box/*.csv for tools/plot_cooling_box.py.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "catch.hpp"
#include "cooling/cooling.hpp"
#include "cooling/cooling_box_support.hpp"
#include "cooling/cooling_reference.hpp"
#include "core/constants.hpp"
#include "setups/cooling_box.hpp"

using namespace mpsph;

TEST_CASE("cooling box: T(t) matches an independent integration for dt = 0.001..100 t_cool",
          "[cooling][cooling_box]") {
  // Galaxy units (kpc, 1e10 Msun, km/s), n_H = 0.1 cm^-3, floor 10 K, no heating.
  const UnitSystem units = UnitSystem::from_cgs(cgs::kpc, 1e10 * cgs::Msun, cgs::km_s);
  CoolingParams cp;
  cp.kind = CoolingKind::Sd93;
  cp.metals = MetalSource::Particles;
  cp.floor_K = 10.0;
  const CoolingModel model(cp, units);
  const double t_unit = units.time_cgs();
  const std::string out_dir = std::string(MPSPH_BINARY_DIR) + "/cooling_box";
  std::filesystem::create_directories(out_dir);

  struct Case {
    const char* name;
    double feh;
    const char* file;  // the table node the reference reads
  };
  const Case cases[] = {{"solar", 0.0, "m-00.cie"}, {"zero", -HUGE_VAL, "mzero.cie"}};
  double worst_half = 0.0, worst_traj = 0.0;
  for (const Case& c : cases)
    for (double T0 : {1e7, 1e6, 1e5}) {
      CoolingBoxParams bp;
      bp.n_side = 2;
      bp.temperature = T0;
      bp.feh = c.feh;
      const CoolingBoxSetup box = make_cooling_box(bp, model);
      const double t_cool = test::cooling_time_of(box.particles, model);

      test::RefCooling ref;
      ref.table = test::read_ref_table(test::sd93_table_path(c.file));
      ref.n_H = bp.n_H;
      ref.x_h = bp.hydrogen_fraction;
      ref.T_floor = cp.floor_K;
      const test::RefTrajectory tr = test::integrate_reference(ref, T0, 100.0 * t_cool * t_unit);
      const double t_half_ref = tr.time_of(0.5 * T0);  // s

      const std::string stem =
          out_dir + "/" + c.name + "_T" + std::to_string(int(std::lround(std::log10(T0))));
      std::FILE* fr = std::fopen((stem + "_ref.csv").c_str(), "w");
      std::FILE* fs = std::fopen((stem + "_steps.csv").c_str(), "w");
      REQUIRE(fr);
      REQUIRE(fs);
      std::fprintf(fr, "t_Myr,T_K\n");
      for (std::size_t j = 0; j < tr.t.size(); ++j)
        std::fprintf(fr, "%.9g,%.9g\n", tr.t[j] / cgs::Myr, tr.T[j]);
      std::fprintf(fs, "dt_over_tcool,t_Myr,T_K,T_ref_K\n");

      for (double k : {0.001, 0.01, 0.1, 1.0, 10.0, 100.0}) {
        const double dt = k * t_cool;
        // The brief's measure: time to reach T0/2.
        const double t_half = test::time_to_reach(box.particles, model, dt, 0.5 * T0);
        const double err_half = std::fabs(t_half * t_unit / t_half_ref - 1.0);

        // Every step end to 100 t_cool: distance of (t_n, T_n) from the reference curve, in time
        // (t_ref(T_n) vs t_n) or in temperature (T_ref(t_n) vs T_n), whichever is smaller: time
        // is the well-conditioned measure where T drops fast (the 1e4 K edge), temperature where
        // it hardly changes (near the floor).
        ParticleStore s = box.particles;
        double err_traj = 0.0;
        const long n_steps = std::lround(100.0 / k);
        for (long n = 1; n <= n_steps; ++n) {
          test::cooling_step(s, model, dt);
          const double t_s = double(n) * dt * t_unit;
          const double T = model.temperature(s.u[0]);
          const double T_ref = tr.T_at(t_s);
          const double e_T = std::fabs(T / T_ref - 1.0);
          const double e_t = std::fabs(tr.time_of(T) / t_s - 1.0);
          err_traj = std::max(err_traj, std::min(e_T, e_t));
          std::fprintf(fs, "%g,%.9g,%.9g,%.9g\n", k, t_s / cgs::Myr, T, T_ref);
        }
        std::printf(
            "cooling box %-5s T0 = %.0e K: t_cool %.4g Myr, t_half %.4g t_cool; "
            "dt = %-5g t_cool: t_half error %.1e, trajectory error %.1e\n",
            c.name, T0, t_cool * t_unit / cgs::Myr, t_half_ref / (t_cool * t_unit), k, err_half,
            err_traj);
        worst_half = std::max(worst_half, err_half);
        worst_traj = std::max(worst_traj, err_traj);
        // The brief's bound; the scheme's local tolerance (1e-3) puts it near 1e-3.
        CHECK(err_half < 0.01);
        CHECK(err_traj < 0.01);
      }
      std::fclose(fr);
      std::fclose(fs);
    }
  std::printf("cooling box: worst t_half error %.2e, worst trajectory error %.2e\n", worst_half,
              worst_traj);
}
