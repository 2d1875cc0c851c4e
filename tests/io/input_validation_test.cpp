// Initial conditions and checkpoints are refused when a value is physically impossible, with the
// file, the dataset and the first offending particle (row and id) in the message.
#include "io/input_validation.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "catch.hpp"
#include "io/io_test_support.hpp"

using namespace mpsph;
using mpsph::test::contains;
using mpsph::test::error_message;

namespace {

// `n_gas` gas particles then `n_dm` dark-matter particles on a jittered lattice, ids 1..N, u > 0,
// h > 0: valid initial conditions.
ParticleStore lattice(std::size_t n_gas, std::size_t n_dm) {
  ParticleStore s;
  s.resize(n_gas + n_dm);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.type[i] = i < n_gas ? kGas : kDarkMatter;
    s.pos[i] = {double(i % 10) + 0.01 * double(i % 7), double((i / 10) % 10), double(i / 100)};
    s.mass[i] = 1.0;
    s.id[i] = i + 1;
    if (i < n_gas) {
      s.u[i] = 1.0;
      s.h[i] = 0.5f;
    }
  }
  return s;
}

ParticleRules rules() {
  ParticleRules r;
  r.n_neighbours = 50;
  r.needs_internal_energy = true;
  for (int t : {0, 1, 3, 4}) r.handled[std::size_t(t)] = true;
  return r;
}

const std::vector<std::string> kAll = {"/PartType0/Coordinates", "/PartType0/InternalEnergy",
                                       "/PartType0/SmoothingLength", "/PartType1/Coordinates"};

std::string ic_error(const ParticleStore& s, const Box& box = Box{},
                     const std::vector<std::string>& datasets = kAll,
                     const ParticleRules& r = rules()) {
  return error_message([&] { validate_initial_conditions(s, box, r, "ic.h5", datasets); });
}

}  // namespace

TEST_CASE("initial conditions: a valid file passes", "[io][validation]") {
  CHECK(ic_error(lattice(100, 20)) == "");
  CHECK(ic_error(lattice(0, 20)) == "");  // no gas: no SPH, no N_B to reach
}

TEST_CASE("initial conditions: every impossible value names dataset, particle and id",
          "[io][validation]") {
  CHECK(ic_error(ParticleStore{}) ==
        "initial conditions 'ic.h5': no particles (every NumPart "
        "count is 0)");
  ParticleStore s = lattice(100, 20);
  SECTION("negative u") {
    s.u[7] = -0.5;
    CHECK(contains(ic_error(s),
                   "initial conditions 'ic.h5': dataset /PartType0/InternalEnergy "
                   "particle 7 (id 8) has u = -0.5"));
  }
  SECTION("zero u, and zero u allowed when the EOS does not use it") {
    s.u[9] = 0.0;
    CHECK(contains(ic_error(s), "/PartType0/InternalEnergy particle 9 (id 10) has u = 0"));
    ParticleRules iso = rules();
    iso.needs_internal_energy = false;
    CHECK(ic_error(s, Box{}, kAll, iso) == "");
    s.u[9] = -1.0;
    CHECK(contains(ic_error(s, Box{}, kAll, iso), "u must not be negative"));
  }
  SECTION("no InternalEnergy for gas") {
    CHECK(contains(ic_error(s, Box{}, {"/PartType0/Coordinates"}),
                   "no dataset /PartType0/InternalEnergy"));
  }
  SECTION("h <= 0 only when the file gives h") {
    s.h[11] = 0.0f;
    CHECK(contains(ic_error(s), "/PartType0/SmoothingLength particle 11 (id 12) has h = 0"));
    CHECK(ic_error(s, Box{}, {"/PartType0/InternalEnergy"}) == "");
  }
  SECTION("fewer gas particles than N_B") {
    // h needs the distances to neighbours N_B and N_B + 1: N_B + 1 = 51 gas particles at least.
    CHECK(contains(ic_error(lattice(50, 20)),
                   "only 50 gas particles; sph.n_neighbours = 50 needs at least 51"));
    CHECK(ic_error(lattice(51, 20)) == "");
  }
  SECTION("a type the run does not evolve, named with its row in its group") {
    s.type[119] = 5;  // the last dark-matter particle becomes a sink: row 0 of /PartType5
    CHECK(contains(ic_error(s),
                   "dataset /PartType5/Coordinates particle 0 (id 120) is of type 5 "
                   "(sinks), which no part of this run evolves"));
  }
  SECTION("duplicate ids: the earliest repeated pair") {
    s.id[110] = 3;  // dark-matter row 10
    s.id[50] = 40;
    CHECK(contains(ic_error(s),
                   "id 40 is given twice: dataset /PartType0/ParticleIDs particle 39 "
                   "(id 40) and dataset /PartType0/ParticleIDs particle 50 (id 40)"));
  }
  SECTION("two particles at one position, in different types") {
    s.pos[115] = s.pos[4];
    CHECK(contains(ic_error(s), "two particles at the same position"));
    CHECK(contains(ic_error(s),
                   "/PartType0/Coordinates particle 4 (id 5) and dataset "
                   "/PartType1/Coordinates particle 15 (id 116)"));
  }
  SECTION("outside a periodic box") {
    Box box;
    box.periodic = true;
    box.lo = {0, 0, 0};
    box.size = {10, 10, 2};
    CHECK(ic_error(s, box) == "");
    s.pos[60].z = -1e-9;
    CHECK(contains(ic_error(s, box),
                   "/PartType0/Coordinates particle 60 (id 61) at (0.04, 6, "
                   "-1e-09) is outside the periodic box"));
  }
}

TEST_CASE("initial conditions: coincident particles are found by sorting, O(N log N)",
          "[io][validation]") {
  // 2 10^5 particles: a pairwise search would make 2 10^10 comparisons (tens of seconds); the sort
  // takes well under a second. The bound below (5 s) holds on a loaded 2-core machine.
  ParticleStore s = lattice(0, 200000);
  for (std::size_t i = 0; i < s.size(); ++i)
    s.pos[i] = {double(i % 100), double((i / 100) % 100), double(i / 10000)};
  s.pos[199999] = s.pos[123456];
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = ic_error(s, Box{}, {"/PartType1/Coordinates"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(contains(msg,
                 "particle 123456 (id 123457) and dataset /PartType1/Coordinates particle "
                 "199999 (id 200000)"));
  CHECK(seconds < 5.0);
}

TEST_CASE("checkpoint particles: rows are counted among the particles of the field's types",
          "[io][validation]") {
  ParticleStore s = lattice(100, 20);
  for (std::size_t i = 0; i < s.size(); i += 2) std::swap(s.type[i], s.type[s.size() - 1 - i]);
  const auto err = [&] {
    return error_message([&] { validate_checkpoint_particles(s, rules(), "ck.h5"); });
  };
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.type[i] == kGas) s.u[i] = 1.0, s.h[i] = 0.5f;
  CHECK(err() == "");
  // Coincident particles are allowed in a checkpoint (a spawned child starts at its parent).
  s.pos[3] = s.pos[4];
  CHECK(err() == "");
  std::size_t gas_row = 0, i = 0;
  for (; i < s.size(); ++i) {
    if (s.type[i] != kGas) continue;
    if (gas_row == 30) break;
    ++gas_row;
  }
  SECTION("NaN in a gas-only field") {
    s.u[i] = std::numeric_limits<double>::quiet_NaN();
    CHECK(contains(err(), "checkpoint 'ck.h5': dataset /Particles/u particle 30 (id " +
                              std::to_string(s.id[i]) + ") is NaN or inf"));
  }
  SECTION("NaN in a field of all types: the row is the store index") {
    s.vel[i].y = std::numeric_limits<double>::infinity();
    CHECK(contains(err(), "dataset /Particles/vel particle " + std::to_string(i)));
  }
  SECTION("negative mass, removed particles excepted") {
    s.mass[i] = 0.0;
    CHECK(contains(err(), "/Particles/mass particle " + std::to_string(i)));
    s.type[i] = kRemoved;
    CHECK(err() == "");
  }
  SECTION("zero h") {
    s.h[i] = 0.0f;
    CHECK(contains(err(), "/Particles/h particle 30"));
  }
  SECTION("duplicate ids") {
    s.id[7] = s.id[2];
    CHECK(contains(err(), "is given twice: dataset /Particles/id particle 2"));
  }
}
