// The device halos of the device-resident MPI ranks (sph/resident_sph_gpu.hpp) without MPI: two
// halves of a particle set, each in a DeviceParticles of its own as two ranks hold them, trade
// search boxes and ghosts as parallel/resident_sph.cpp does, and must give one GPU's h, density,
// pressure and forces on the whole set. The halo selection is checked against the rule applied
// by brute force, the search boxes against their definition.
#ifdef MPSPH_HAVE_CUDA
#include "sph/resident_sph_gpu.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/constants.hpp"
#include "core/device_particles.hpp"
#include "core/particle_order.hpp"
#include "core/particle_store_support.hpp"
#include "sph/neighbour_search.hpp"
#include "sph/sph_gpu.hpp"
#include "sph_test_setup.hpp"

using namespace mpsph;

namespace {

struct Case {
  std::string name;
  ParticleStore s;
  Box box;
};

// Clustered (h spans decades, open box) and uniform in a periodic box (ghosts across the faces).
std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"clustered",
               test::gas_store(test::clustered_points(12000, {0, 0, 0}, 1.0, 21), 1e-4), Box{}});
  const Box box = test::periodic_box({-1, 0, 0}, {2, 1, 1.5});
  v.push_back({"periodic",
               test::gas_store(test::uniform_points(12000, {-1, 0, 0}, {2, 1, 1.5}, 22), 1e-4),
               box});
  for (Case& c : v) {
    test::random_velocities(c.s, 1.0, 23);
    order_particles(c.s, c.box);
  }
  return v;
}

// The halo rule by brute force: the particles of `s` within max(b.radius, reach_j) (1 + slack)
// of a box b.
std::vector<uint32_t> rule(const ParticleStore& s, const std::vector<double>& reach,
                           const std::vector<SearchBox>& boxes, const Box& box) {
  std::vector<uint32_t> out;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const Vec3d x = wrap_position(s.pos[j], box);
    for (const SearchBox& b : boxes) {
      const double t =
          std::max(b.radius, reach.empty() ? 0.0 : reach[j]) * (1.0 + kTreeRadiusSlack);
      if (boxes_within(x, x, b.lo, b.hi, t * t, box)) {
        out.push_back(uint32_t(j));
        break;
      }
    }
  }
  return out;
}

// The boxes `q` near (box_near) one of `boxes`, in order, by brute force.
std::vector<SearchBox> near_any(const std::vector<SearchBox>& q,
                                const std::vector<SearchBox>& boxes, const Box& box) {
  std::vector<SearchBox> out;
  for (const SearchBox& a : q)
    for (const SearchBox& b : boxes)
      if (box_near(a.lo, a.hi, a.radius, b, kTreeRadiusSlack, box)) {
        out.push_back(a);
        break;
      }
  return out;
}

// `n` items as the offsets of `parts` "ranks", every seventh (0, 7, ...) without any.
std::vector<std::size_t> uneven_parts(std::size_t n, std::size_t parts) {
  std::vector<std::size_t> off(parts + 1, 0);
  const std::size_t holding = parts - (parts + 6) / 7;
  std::size_t k = 0;
  for (std::size_t r = 0; r < parts; ++r) {
    if (r % 7 != 0) ++k;
    off[r + 1] = n * k / holding;
  }
  return off;
}

std::vector<SearchBox> part(const std::vector<SearchBox>& v, const std::vector<std::size_t>& off,
                            std::size_t r) {
  return std::vector<SearchBox>(v.begin() + std::ptrdiff_t(off[r]),
                                v.begin() + std::ptrdiff_t(off[r + 1]));
}

// The boxes of `rule` over particles [0, n) of s (sph/search_box.hpp), grown on the host.
std::vector<SearchBox> host_boxes(const ParticleStore& s, std::size_t n,
                                  const std::vector<double>& scale,
                                  const std::vector<double>& radius, const Box& box, BoxRule rule) {
  struct At {
    const ParticleStore& s;
    const std::vector<double>& scale;
    const std::vector<double>& radius;
    const Box& box;
    BoxPoint operator()(std::size_t k) const {
      return {wrap_position(s.pos[k], box), scale[k], radius[k]};
    }
  } at{s, scale, radius, box};
  struct Emit {
    std::vector<SearchBox>& out;
    void operator()(const SearchBox& b) { out.push_back(b); }
  };
  std::vector<SearchBox> out;
  Emit emit{out};
  for (std::size_t c = 0; c < n; c += rule.chunk)
    grow_boxes(at, c, std::min(n, c + rule.chunk), rule.stretch, emit);
  return out;
}

bool same_boxes(const std::vector<SearchBox>& a, const std::vector<SearchBox>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].lo.x != b[k].lo.x || a[k].lo.y != b[k].lo.y || a[k].lo.z != b[k].lo.z ||
        a[k].hi.x != b[k].hi.x || a[k].hi.y != b[k].hi.y || a[k].hi.z != b[k].hi.z ||
        a[k].radius != b[k].radius)
      return false;
  return true;
}

// Two "ranks": each side's searchers' boxes go to the other, which sends what they need.
struct Side {
  DeviceParticles d;
  ResidentSph sph{d};
  std::vector<uint32_t> sent;         // this side's particles the other side needs
  std::vector<unsigned char> ghosts;  // the other side's particles this side needs (host) ...
  const unsigned char* device_ghosts = nullptr;  // ... or on the device (the other's pack)
  bool on_device = false;                        // which of the two the passes take
  explicit Side(const ParticleStore& s, bool dev) : on_device(dev) { d.upload(s); }
  ResidentSph::Ghosts received(std::size_t n) const {
    return {on_device ? device_ghosts : ghosts.data(), n, on_device};
  }
};

// Each side's records of `what` of the particles the other needs, as the other receives them.
void send(Side& a, Side& b, ResidentSph::Halo what) {
  if (a.on_device) {
    b.device_ghosts = a.sph.pack_on_device(what, a.sent);
    a.device_ghosts = b.sph.pack_on_device(what, b.sent);
  } else {
    b.sph.pack(what, b.sent, a.ghosts);
    a.sph.pack(what, a.sent, b.ghosts);
  }
}

void trade(Side& a, Side& b, ResidentSph::Halo what, const Box& box) {
  // The exchange of parallel/sph_halo.hpp: each side sends the search boxes near the other's
  // domain boxes.
  const std::vector<SearchBox> domain_a = a.sph.domain_boxes(box),
                               domain_b = b.sph.domain_boxes(box);
  a.sph.grow_search_boxes(box);
  b.sph.grow_search_boxes(box);
  const std::vector<SearchBox> boxes_a =
      a.sph.search_boxes_near(domain_b, {0, domain_b.size()}, box)[0];
  const std::vector<SearchBox> boxes_b =
      b.sph.search_boxes_near(domain_a, {0, domain_a.size()}, box)[0];
  a.sent = a.sph.needed_by_all(boxes_b, {0, boxes_b.size()}, box)[0];
  b.sent = b.sph.needed_by_all(boxes_a, {0, boxes_a.size()}, box)[0];
  send(a, b, what);
}

// One GPU's h, density, pressure and forces on every particle of the case.
ParticleStore one_gpu(const Case& c, const SphParams& sp, const EosParams& eos) {
  DeviceParticles all;
  all.upload(c.s);
  GpuSph one;
  one.smoothing_lengths(all.view(), c.box, sp);
  one.density(all.view(), c.box, sp);
  one.prepare_force(all.view(), eos, sp);
  one.forces(all.view(), c.box, sp);
  one.throw_if_errors(sp.n_neighbours);
  ParticleStore ref = c.s;
  all.download(ref);
  return ref;
}

// The smoothing-length rounds of parallel/resident_sph.cpp, the first started with `guess` and
// `reach` (ResidentSph::start_smoothing_lengths); returns how many it took. The sides' `sent`
// hold the last round's selections.
int smoothing_rounds(Side& a, Side& b, std::size_t n, const Case& c, const SphParams& sp,
                     double guess, bool reach) {
  const std::size_t k = std::size_t(sp.n_neighbours) + 1, half = n / 2;
  a.sph.start_smoothing_lengths(guess, reach);
  b.sph.start_smoothing_lengths(guess, reach);
  for (int rounds = 1;; ++rounds) {
    REQUIRE(rounds <= 16);
    trade(a, b, ResidentSph::Halo::h, c.box);
    const std::size_t ga = b.sent.size(), gb = a.sent.size();
    const std::size_t left_a =
        a.sph.smoothing_lengths(a.received(ga), c.box, sp, half + ga < k, 1.0);
    const std::size_t left_b =
        b.sph.smoothing_lengths(b.received(gb), c.box, sp, n - half + gb < k, 1.0);
    if (left_a == 0 && left_b == 0) return rounds;
  }
}

// Density and forces over the ghosts the sides' `sent` select (their density records, then the
// refresh), and the results downloaded into ha and hb.
void density_and_forces(Side& a, Side& b, const Case& c, const SphParams& sp, const EosParams& eos,
                        ParticleStore& ha, ParticleStore& hb) {
  send(a, b, ResidentSph::Halo::density);
  const std::size_t ga = b.sent.size(), gb = a.sent.size();
  a.sph.density(a.received(ga), c.box, sp, eos);
  b.sph.density(b.received(gb), c.box, sp, eos);
  send(a, b, ResidentSph::Halo::refresh);
  a.sph.forces(a.received(ga), c.box, sp);
  b.sph.forces(b.received(gb), c.box, sp);
  a.d.download(ha);
  b.d.download(hb);
}

// The two halves (ha: the first n / 2 of ref's particles) against one GPU's results: h and nngb
// that differ, and the largest relative differences of the rest.
struct Differences {
  std::size_t h = 0;
  double rho = 0, pressure = 0, acc = 0, dudt = 0;
};
Differences differences(const ParticleStore& ref, const ParticleStore& ha,
                        const ParticleStore& hb) {
  const std::size_t n = ref.size(), half = n / 2;
  Differences d;
  double acc_scale = 0, dudt_scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3d g = ref.acc[i];
    acc_scale = std::max(acc_scale, std::sqrt(g.x * g.x + g.y * g.y + g.z * g.z));
    dudt_scale = std::max(dudt_scale, std::fabs(double(ref.dudt[i])));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const ParticleStore& s = i < half ? ha : hb;
    const std::size_t j = i < half ? i : i - half;
    d.h += s.h[j] != ref.h[i] || s.nngb[j] != ref.nngb[i];
    d.rho = std::max(d.rho, std::fabs(double(s.rho[j]) - double(ref.rho[i])) / double(ref.rho[i]));
    d.pressure = std::max(d.pressure, std::fabs(double(s.pressure[j]) - double(ref.pressure[i])) /
                                          double(ref.pressure[i]));
    const Vec3d e = s.acc[j] - ref.acc[i];
    d.acc = std::max(d.acc, std::sqrt(e.x * e.x + e.y * e.y + e.z * e.z) / acc_scale);
    d.dudt = std::max(d.dudt, std::fabs(double(s.dudt[j]) - double(ref.dudt[i])) / dudt_scale);
  }
  return d;
}

}  // namespace

// The ghosts' records reach the passes from host memory (the halos through MPI) and from device
// memory (GPU to GPU, parallel/device_all_to_all.hpp): both must give the same results.
TEST_CASE("resident SPH halos: two halves on the GPU give one GPU's h, density and forces",
          "[gpu][sph]") {
  SphParams sp;
  EosParams eos;
  for (const bool on_device : {false, true})
    for (const Case& c : cases()) {
      INFO(c.name << (on_device ? ", records on the device" : ", records in host memory"));
      const std::size_t n = c.s.size(), half = n / 2;
      const ParticleStore ref = one_gpu(c, sp, eos);
      Side a(test::store_rows(c.s, 0, half), on_device),
          b(test::store_rows(c.s, half, n), on_device);
      // Smoothing lengths from scratch (no h): a guess of a tenth of the mean spacing, so that the
      // rounds must widen.
      const double guess = 0.1 * std::cbrt((c.box.periodic ? 3.0 : 8.0) / double(n));
      const int rounds = smoothing_rounds(a, b, n, c, sp, guess, false);
      CHECK(rounds >= 2);

      // Density and forces: check the selection against the rule and the boxes by brute force.
      a.sph.start_density();
      b.sph.start_density();
      ParticleStore ha, hb;
      a.d.download(ha);
      b.d.download(hb);
      std::vector<double> reach_b(hb.size());
      for (std::size_t j = 0; j < hb.size(); ++j) reach_b[j] = 2.0 * double(hb.h[j]);
      // The boxes by the rule of sph/search_box.hpp on the host: a's search boxes (every local
      // gas particle searches within 2 h) and b's domain boxes (scale and reach 2 h).
      std::vector<double> two_h_a(ha.size());
      for (std::size_t i = 0; i < ha.size(); ++i) two_h_a[i] = 2.0 * double(ha.h[i]);
      const std::vector<SearchBox> search_a =
          host_boxes(ha, half, two_h_a, two_h_a, c.box, kSearchBoxes);
      const std::vector<SearchBox> domain_b =
          host_boxes(hb, n - half, reach_b, reach_b, c.box, kDomainBoxes);
      a.sph.grow_search_boxes(c.box);
      const std::vector<SearchBox> boxes_a = a.sph.search_boxes();
      CHECK(same_boxes(boxes_a, search_a));
      CHECK(same_boxes(b.sph.domain_boxes(c.box), domain_b));
      CHECK(boxes_a.size() < half);
      const std::vector<uint32_t> need =
          b.sph.needed_by_all(boxes_a, {0, boxes_a.size()}, c.box)[0];
      CHECK(need == rule(hb, reach_b, boxes_a, c.box));
      CHECK(!need.empty());
      // Only the search boxes near b's domain boxes go to b: they select the same particles.
      const std::vector<SearchBox> near_b =
          a.sph.search_boxes_near(domain_b, {0, domain_b.size()}, c.box)[0];
      CHECK(near_b.size() < boxes_a.size());
      CHECK(same_boxes(near_b, near_any(boxes_a, domain_b, c.box)));
      CHECK(b.sph.needed_by_all(near_b, {0, near_b.size()}, c.box)[0] == need);
      // b's domain boxes as the domains of 3 and of 40 "ranks" (two passes of 32; every seventh
      // without boxes): each rank's search boxes by brute force.
      for (const std::size_t P : {std::size_t(3), std::size_t(40)}) {
        INFO(P << " ranks' domains");
        const std::vector<std::size_t> off = uneven_parts(domain_b.size(), P);
        const std::vector<std::vector<SearchBox>> near =
            a.sph.search_boxes_near(domain_b, off, c.box);
        REQUIRE(near.size() == P);
        std::size_t differ = 0, found = 0;
        for (std::size_t r = 0; r < P; ++r) {
          differ += !same_boxes(near[r], near_any(boxes_a, part(domain_b, off, r), c.box));
          found += near[r].size();
        }
        CHECK(differ == 0);
        CHECK(near[0].empty());
        CHECK(found >= near_b.size());
      }
      // a's search boxes as those of 2, 3 and 40 "ranks" at once: each gets what its part selects
      // alone, by the rule.
      for (const std::size_t P : {std::size_t(2), std::size_t(3), std::size_t(40)}) {
        INFO(P << " ranks' search boxes");
        const std::vector<std::size_t> off = uneven_parts(boxes_a.size(), P);
        const std::vector<std::vector<uint32_t>> per_rank =
            b.sph.needed_by_all(boxes_a, off, c.box);
        REQUIRE(per_rank.size() == P);
        std::size_t differ = 0, found = 0;
        for (std::size_t r = 0; r < P; ++r) {
          differ += per_rank[r] != rule(hb, reach_b, part(boxes_a, off, r), c.box);
          found += per_rank[r].size();
        }
        CHECK(differ == 0);
        CHECK(per_rank[0].empty());
        CHECK(found >= need.size());
      }

      trade(a, b, ResidentSph::Halo::density, c.box);
      density_and_forces(a, b, c, sp, eos, ha, hb);

      // h and nngb: the same neighbour sets, the same exact rule: identical. The sums run in
      // another order (the work store's leaves): float sums of ~50 terms, within 1e-5 relative of
      // the larger of the value and the set's typical size.
      const Differences d = differences(ref, ha, hb);
      std::printf(
          "[resident sph] %-9s N=%zu, records %s: %d h rounds, ghosts %zu + %zu; h differ %zu; "
          "rho %.2g, P %.2g, acc %.2g, du/dt %.2g\n",
          c.name.c_str(), n, on_device ? "on the device" : "in host memory", rounds, b.sent.size(),
          a.sent.size(), d.h, d.rho, d.pressure, d.acc, d.dudt);
      CHECK(d.h == 0);
      CHECK(d.rho < 1e-5);
      CHECK(d.pressure < 1e-5);
      CHECK(d.acc < 1e-5);
      CHECK(d.dudt < 1e-5);
    }
}

// The steps after the start-up (parallel/resident_sph.hpp, ResidentHalo): with every h known, one
// round searching within 2.5 h whose selection takes that radius as each particle's reach settles
// every h, and its ghosts serve the density and forces - a superset of the density's own halo,
// giving one GPU's results.
TEST_CASE("resident SPH halos: the first round by the density's rule serves the density",
          "[gpu][sph]") {
  SphParams sp;
  EosParams eos;
  for (const Case& c : cases()) {
    INFO(c.name);
    const std::size_t n = c.s.size(), half = n / 2;
    const ParticleStore ref = one_gpu(c, sp, eos);
    Side a(test::store_rows(c.s, 0, half), true), b(test::store_rows(c.s, half, n), true);
    const double guess = 0.1 * std::cbrt((c.box.periodic ? 3.0 : 8.0) / double(n));
    REQUIRE(smoothing_rounds(a, b, n, c, sp, guess, false) >= 2);  // the start-up
    // The next step at the same positions: one round, by the density's rule.
    const int rounds = smoothing_rounds(a, b, n, c, sp, 0.0, true);
    CHECK(rounds == 1);
    const std::vector<uint32_t> kept_a = a.sent, kept_b = b.sent;
    // The density's own halo: a subset of the round's.
    a.sph.start_density();
    b.sph.start_density();
    trade(a, b, ResidentSph::Halo::density, c.box);
    CHECK(std::includes(kept_a.begin(), kept_a.end(), a.sent.begin(), a.sent.end()));
    CHECK(std::includes(kept_b.begin(), kept_b.end(), b.sent.begin(), b.sent.end()));
    const std::size_t own_a = a.sent.size(), own_b = b.sent.size();
    CHECK(kept_a.size() + kept_b.size() > own_a + own_b);
    a.sent = kept_a, b.sent = kept_b;
    ParticleStore ha, hb;
    density_and_forces(a, b, c, sp, eos, ha, hb);
    const Differences d = differences(ref, ha, hb);
    std::printf(
        "[resident sph] %-9s N=%zu, one round by the density's rule: ghosts %zu + %zu (the "
        "density's own %zu + %zu); h differ %zu; rho %.2g, P %.2g, acc %.2g, du/dt %.2g\n",
        c.name.c_str(), n, kept_b.size(), kept_a.size(), own_b, own_a, d.h, d.rho, d.pressure,
        d.acc, d.dudt);
    CHECK(d.h == 0);
    CHECK(d.rho < 1e-5);
    CHECK(d.pressure < 1e-5);
    CHECK(d.acc < 1e-5);
    CHECK(d.dudt < 1e-5);
  }
}

#endif  // MPSPH_HAVE_CUDA
