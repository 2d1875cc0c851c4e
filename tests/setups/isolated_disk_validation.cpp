// Isolated disk galaxy, gravity + adiabatic gas at CI size: the stellar and gas disks keep their
// radial mass profile and rotation, and the stellar disk its thickness over ~4 dynamical times at 2
// R_d. The radial profile tests the rotation (asymmetric drift, pressure support): without them the
// disk contracts or expands within a dynamical time. The thickness tests the vertical Jeans
// equation: the vertical crossing time z0/sigma_z ~ 15 Myr is short against the 98 Myr run, so an
// error in sigma_z^2 by a factor f would change the thickness by ~f. Tolerances: 10% (issue 15),
// and 15% for the thickness: the 10% target plus the heating by the 5 000 heavy halo particles
// (140x the disk particles' mass), measured +10% here against +7% at twice the particles
// (setups/isolated_disk.yaml, 98 Myr). The gas layer (median |z| 0.07 kpc) is thinner than the SPH
// kernel (median 2h = 1.7 kpc at 3-9 kpc, measured at t = 0.1) and thickens towards it; it is
// reported, not asserted
// (docs/galaxies.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "setups/disk_stability_support.hpp"

using namespace mpsph;

namespace {

// 9 250 particles (the setups/isolated_disk.yaml galaxy at half its particle numbers), t = 0.1
// (98 Myr: 3.7 dynamical times R/v_c at 2 R_d = 6 kpc, 0.6 rotations there).
const char* kDisk = R"(
run: {t_end: 0.1, snapshot_times: [0.1]}
units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}
setup:
  type: disk_galaxy
  halo: {n: 5000}
  bulge: {n: 500}
  disk: {n: 2500}
  gas: {n: 1250}
  grid: {n_R: 48, n_z: 32}
eos: {type: adiabatic}
gravity: {softening: [0.15, 0.5, 0.15, 0.15, 0.15, 0.15]}
timestep: {scheme: block, dt_max: 0.005}
)";

}  // namespace

TEST_CASE("isolated disk keeps its mass profile and thickness", "[validation][disk]") {
  const std::string out = test::scratch_dir("isolated_disk");
  Simulation sim(test::run_options(out, kDisk));
  REQUIRE(sim.run());
  const std::size_t last_disk_id = 1250 + 5000 + 2500;
  const test::DiskStructure a = test::measure_disk(out + "/snapshot_0000.h5", last_disk_id, 3.0);
  const test::DiskStructure b = test::measure_disk(out + "/snapshot_0001.h5", last_disk_id, 3.0);
  test::print_disk("isolated disk", a);
  test::print_disk("isolated disk", b);
  REQUIRE(b.t == Approx(0.1));
  CHECK(std::fabs(b.stars_r50 / a.stars_r50 - 1) < 0.1);
  CHECK(std::fabs(b.stars_r80 / a.stars_r80 - 1) < 0.1);
  CHECK(std::fabs(b.gas_r50 / a.gas_r50 - 1) < 0.1);
  CHECK(std::fabs(b.gas_r80 / a.gas_r80 - 1) < 0.1);
  CHECK(std::fabs(b.stars_zmed / a.stars_zmed - 1) < 0.15);
  // The rotation (measured 2026-11-26: stars -1.7%, gas -4.8%).
  CHECK(std::fabs(b.stars_vphi / a.stars_vphi - 1) < 0.1);
  CHECK(std::fabs(b.gas_vphi / a.gas_vphi - 1) < 0.1);
}

// The disk structure in every snapshot of a longer run made by bench/isolated_disk.sh (N = 1e5,
// 1e6 on the GPU, 1 Gyr): the last snapshot against the first, with the issue's 10% on the mass
// radii, the rotation and the stellar thickness. Hidden: it needs the run's directory
// (MPSPH_DISK_DIR) and the last disk-star id (MPSPH_DISK_LAST_ID = n_gas + n_halo + n_disk).
TEST_CASE("isolated disk: the snapshots of a bench/isolated_disk.sh run", "[.][disk_snapshots]") {
  const char* dir = std::getenv("MPSPH_DISK_DIR");
  const char* last = std::getenv("MPSPH_DISK_LAST_ID");
  REQUIRE(dir != nullptr);
  REQUIRE(last != nullptr);
  std::vector<std::string> snaps;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("snapshot_", 0) == 0 && e.path().extension() == ".h5")
      snaps.push_back(e.path().string());
  }
  std::sort(snaps.begin(), snaps.end());
  REQUIRE(snaps.size() >= 2);
  const std::size_t last_disk_id = std::stoul(last);
  std::vector<test::DiskStructure> d;
  for (const std::string& s : snaps) {
    d.push_back(test::measure_disk(s, last_disk_id, 3.0));
    test::print_disk("[disk]", d.back());
  }
  const test::DiskStructure &a = d.front(), &b = d.back();
  auto drift = [](double x, double x0) { return x / x0 - 1; };
  std::printf(
      "[disk] drift to t = %.4f: stars R50 %+.3f R80 %+.3f median|z| %+.3f v_phi %+.3f; gas R50 "
      "%+.3f R80 %+.3f v_phi %+.3f median|z| %+.3f (reported)\n",
      b.t, drift(b.stars_r50, a.stars_r50), drift(b.stars_r80, a.stars_r80),
      drift(b.stars_zmed, a.stars_zmed), drift(b.stars_vphi, a.stars_vphi),
      drift(b.gas_r50, a.gas_r50), drift(b.gas_r80, a.gas_r80), drift(b.gas_vphi, a.gas_vphi),
      drift(b.gas_zmed, a.gas_zmed));
  CHECK(std::fabs(drift(b.stars_r50, a.stars_r50)) < 0.1);
  CHECK(std::fabs(drift(b.stars_r80, a.stars_r80)) < 0.1);
  CHECK(std::fabs(drift(b.gas_r50, a.gas_r50)) < 0.1);
  CHECK(std::fabs(drift(b.gas_r80, a.gas_r80)) < 0.1);
  CHECK(std::fabs(drift(b.stars_vphi, a.stars_vphi)) < 0.1);
  CHECK(std::fabs(drift(b.gas_vphi, a.gas_vphi)) < 0.1);
  CHECK(std::fabs(drift(b.stars_zmed, a.stars_zmed)) < 0.1);
}
