// Isolated disk galaxy at N = 1e5 and 1e6 on the GPU, gravity + adiabatic gas, for 1 Gyr
// (issue #15): the stellar and gas disks keep their radial mass profile (the radii holding 50% and
// 80% of their mass: the surface density), their rotation (mean v_phi at R_d..3 R_d: the rotation
// curve) and the stellar disk its thickness (median |z|) within 10% of the initial values.
// setups/isolated_disk.yaml scaled as its header says: every particle number x5.4 (1e5) or x54
// (1e6), softening x N^(-1/3). Hidden tags (not part of "gpu: all": minutes of GPU time):
//   mpsph_gpu_tests "[disk1e5]"   mpsph_gpu_tests "[disk1e6]"
#ifdef MPSPH_HAVE_CUDA
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "catch.hpp"
#include "setups/disk_stability_support.hpp"

using namespace mpsph;

namespace {

// t_end 1.0227 code time = 1 Gyr (time unit 0.9778 Gyr).
void run_disk(const char* name, long n_halo, long n_bulge, long n_disk, long n_gas, double eps) {
  char yaml[1600];
  std::snprintf(yaml, sizeof yaml, R"(
run: {t_end: 1.0227, snapshot_times: [0.5, 1.0227], diagnostics_every: 1000}
units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
setup:
  type: disk_galaxy
  halo: {n: %ld}
  bulge: {n: %ld}
  disk: {n: %ld}
  gas: {n: %ld}
eos: {type: adiabatic}
sph: {n_neighbours: 50}
gravity: {softening: [%g, %g, %g, %g, %g, %g]}
timestep: {scheme: block, dt_max: 0.005}
)",
                n_halo, n_bulge, n_disk, n_gas, eps, 4 * eps, eps, eps, eps, eps);
  const std::string out = test::scratch_dir(std::string("gpu_") + name);
  const auto t0 = std::chrono::steady_clock::now();
  Simulation sim(test::run_options(out, yaml, {}, "gpu"));
  REQUIRE(sim.run());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::size_t last_disk_id = std::size_t(n_gas + n_halo + n_disk);
  const test::DiskStructure a = test::measure_disk(out + "/snapshot_0000.h5", last_disk_id, 3.0);
  const test::DiskStructure m = test::measure_disk(out + "/snapshot_0001.h5", last_disk_id, 3.0);
  const test::DiskStructure b = test::measure_disk(out + "/snapshot_0002.h5", last_disk_id, 3.0);
  std::printf("[gpu disk] %s: N = %ld, wall %.1f s, output %s\n", name,
              n_halo + n_bulge + n_disk + n_gas, wall, out.c_str());
  test::print_disk("[gpu disk]", a);
  test::print_disk("[gpu disk]", m);
  test::print_disk("[gpu disk]", b);
  REQUIRE(b.t == Approx(1.0227));
  CHECK(std::fabs(b.stars_r50 / a.stars_r50 - 1) < 0.1);
  CHECK(std::fabs(b.stars_r80 / a.stars_r80 - 1) < 0.1);
  CHECK(std::fabs(b.gas_r50 / a.gas_r50 - 1) < 0.1);
  CHECK(std::fabs(b.gas_r80 / a.gas_r80 - 1) < 0.1);
  CHECK(std::fabs(b.stars_vphi / a.stars_vphi - 1) < 0.1);
  CHECK(std::fabs(b.gas_vphi / a.gas_vphi - 1) < 0.1);
  CHECK(std::fabs(b.stars_zmed / a.stars_zmed - 1) < 0.1);
}

}  // namespace

TEST_CASE("isolated disk, N = 1e5, 1 Gyr on the GPU: profile, rotation and thickness",
          "[.][gpu][disk1e5]") {
  run_disk("disk1e5", 54000, 5400, 27000, 13500, 0.1 * std::cbrt(18500.0 / 99900.0));
}

TEST_CASE("isolated disk, N = 1e6, 1 Gyr on the GPU: profile, rotation and thickness",
          "[.][gpu][disk1e6]") {
  run_disk("disk1e6", 540000, 54000, 270000, 135000, 0.1 * std::cbrt(18500.0 / 999000.0));
}

#endif  // MPSPH_HAVE_CUDA
