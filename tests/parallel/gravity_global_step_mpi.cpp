// SPH + self-gravity steps across ranks (DistributedStepper with DistributedGravity) against the
// CPU backend of one process (run by mpiexec on 1, 2 and 3 ranks): an Evrard collapse of ~2 000
// gas particles over 50 global steps - kinetic, thermal, potential and total energy within 1e-5
// of |E0| of the single-process run at every step (issue #18), momentum conserved as well as on
// one process - and a pure N-body Plummer sphere (no gas: the SPH stages are skipped).
#include <cmath>
#include <cstdio>
#include <vector>

#include "catch.hpp"
#include "gravity/direct_gravity.hpp"
#include "parallel/distributed_step.hpp"
#include "parallel/global_step_reference.hpp"
#include "parallel/mpi_comm.hpp"
#include "parallel/mpi_test_setup.hpp"
#include "setups/evrard.hpp"
#include "setups/plummer.hpp"

using namespace mpsph;
using namespace mpsph::test;

namespace {

struct Energies {
  double kin = 0, th = 0, pot = 0;
  Vec3d momentum{0, 0, 0};
  double m_acc = 0;  // sum m |a_grav|
  double total() const { return kin + th + pot; }
};

Energies local_energies(const ParticleStore& s) {
  Energies e;
  for (std::size_t i = 0; i < s.size(); ++i) {
    e.kin += 0.5 * s.mass[i] * norm2(s.vel[i]);
    if (s.type[i] == kGas) e.th += s.mass[i] * s.u[i];
    e.pot += 0.5 * s.mass[i] * s.pot[i];
    e.momentum += s.mass[i] * s.vel[i];
    e.m_acc += s.mass[i] * norm(s.acc_grav[i]);
  }
  return e;
}

Energies global_energies(const ParticleStore& s, const MpiComm& comm) {
  const Energies l = local_energies(s);
  std::vector<double> v{l.kin, l.th, l.pot, l.momentum.x, l.momentum.y, l.momentum.z};
  comm.sum(v);
  return {v[0], v[1], v[2], {v[3], v[4], v[5]}};
}

// `steps` steps of `initial` at the fixed dt = tstep.dt_max on one process and across the ranks:
// the energies must agree within e_tol |E0| at every step.
void compare_energies(const char* name, const ParticleStore& initial, const GravityParams& grav,
                      const TimestepParams& tstep, int steps, double e_tol) {
  const MpiComm comm;
  SphParams sph;
  EosParams eos;
  std::vector<Energies> ref;
  std::vector<double> ref_dts;
  ParticleStore one = initial;
  single_process(one, Box{}, sph, eos, grav, tstep, steps, ref_dts, 1.0,
                 [&](const ParticleStore& s) { ref.push_back(local_energies(s)); });

  ParticleStore s = scattered_share(initial, comm);
  DistributedStepper stepper(Box{}, sph, eos, grav, tstep, DecompositionParams{}, comm, 1.0);
  double dt = stepper.start(s);
  const double e0 = std::fabs(ref[0].total());
  double d_kin = 0, d_th = 0, d_pot = 0, d_tot = 0, p_one = 0, p_ranks = 0, m_acc = 0;
  std::size_t let_nodes = 0, let_parts = 0, let_bytes = 0;
  for (int k = 0; k <= steps; ++k) {
    if (k > 0) {
      REQUIRE(dt == ref_dts[std::size_t(k - 1)]);
      dt = stepper.step(s, dt);
    }
    const Energies e = global_energies(s, comm);
    const Energies& r = ref[std::size_t(k)];
    d_kin = std::max(d_kin, std::fabs(e.kin - r.kin) / e0);
    d_th = std::max(d_th, std::fabs(e.th - r.th) / e0);
    d_pot = std::max(d_pot, std::fabs(e.pot - r.pot) / e0);
    d_tot = std::max(d_tot, std::fabs(e.total() - r.total()) / e0);
    p_one = std::max(p_one, norm(r.momentum - ref[0].momentum));
    m_acc = std::max(m_acc, r.m_acc);
    p_ranks = std::max(p_ranks, norm(e.momentum - ref[0].momentum));
    const DistributedGravityReport& g = stepper.last_gravity();
    let_nodes = std::max(let_nodes, std::size_t(comm.sum(uint64_t(g.let_nodes_sent))));
    let_parts = std::max(let_parts, std::size_t(comm.sum(uint64_t(g.let_particles_sent))));
    let_bytes = std::max(let_bytes, std::size_t(comm.sum(uint64_t(g.let_bytes_sent))));
  }
  REQUIRE(ref_dts.size() == std::size_t(steps));
  // The one-process tree's own error of W at the start, against the double direct sum.
  const std::size_t n = initial.size();
  std::vector<float> eps(n);
  for (std::size_t i = 0; i < n; ++i) eps[i] = float(grav.softening[initial.type[i]]);
  std::vector<Vec3d> acc_direct(n);
  std::vector<double> pot_direct(n);
  direct_gravity_double({initial.pos.data(), initial.mass.data(), eps.data(), n}, grav.kernel, 1.0,
                        0, n, acc_direct.data(), pot_direct.data());
  double w_direct = 0;
  for (std::size_t i = 0; i < n; ++i) w_direct += 0.5 * initial.mass[i] * pot_direct[i];
  const Energies end = ref.back();
  double t_end = 0;
  for (const double x : ref_dts) t_end += x;
  if (comm.rank() == 0)
    std::printf(
        "[%s, %zu particles, %d steps of dt %.3g, %d ranks] E0 = %.6f, at the end E_kin %.5f "
        "E_th %.5f E_pot %.5f; max |difference| / |E0| from one process: kin %.2e th %.2e pot "
        "%.2e total %.2e (one process at the start: W(tree) - W(direct) = %.2e |E0|); max |P - "
        "P0|: 1 process %.2e, ranks %.2e (bound term 1e-4 t sum m|a| = %.2e); LET per "
        "step over all ranks (max): %zu nodes, %zu particles, %.1f kB\n",
        name, one.size(), steps, ref_dts[0], comm.size(), ref[0].total(), end.kin, end.th, end.pot,
        d_kin, d_th, d_pot, d_tot, (ref[0].pot - w_direct) / e0, p_one, p_ranks,
        1e-4 * t_end * m_acc, let_nodes, let_parts, double(let_bytes) / 1e3);
  CHECK(d_kin <= e_tol);
  CHECK(d_th <= e_tol);
  CHECK(d_pot <= e_tol);
  CHECK(d_tot <= e_tol);
  // Momentum: tree forces are not antisymmetric, so sum m a != 0 on one process too. Across ranks
  // it must stay at that level: within 2x of one process, or - where one process cancels by the
  // symmetry of the initial lattice (Evrard: 1e-10), which a domain cut breaks - below a coherent
  // force error of 1e-4 (under the median tree error) over the run, 1e-4 t sum m |a|. A missing
  // or doubled remote contribution gives errors of order 1.
  CHECK(p_ranks <= 2.0 * p_one + 1e-4 * t_end * m_acc);
}

}  // namespace

TEST_CASE("SPH + gravity steps across ranks: Evrard collapse, energies of one process",
          "[mpi][gravity][step]") {
  EvrardParams ep;
  ep.n_target = 2000;
  GravityParams grav;  // tree, relative criterion 0.004 after the first call, Plummer softening
  grav.softening.fill(0.02);
  TimestepParams tstep;
  tstep.scheme = TimestepScheme::Global;  // the ranks step globally
  tstep.dt_max = 0.005;  // below every criterion here: the same dt on both sides (checked)
  // The target: every energy within 1e-5 of |E0| of the single-process run.
  compare_energies("Evrard", make_evrard(ep), grav, tstep, 50, 1e-5);
}

TEST_CASE("gravity steps across ranks: N-body Plummer sphere, energies of one process",
          "[mpi][gravity][step]") {
  GravityParams grav;
  grav.softening.fill(0.02);
  TimestepParams tstep;
  tstep.scheme = TimestepScheme::Global;  // the ranks step globally
  tstep.dt_max = 0.01;
  // N-body orbits diverge from round-off onwards, and the potential energies of two trees of the
  // same criterion differ by their own errors: on one process W(tree) - W(direct) is 1.6e-5 |E0|
  // at the start; across 2 and 3 ranks W differs from one process by at most 1.7e-5 and 2.2e-5
  // |E0| over the 30 steps. Bound 5e-5 (3x one tree's own error); the 1e-5 target is the Evrard
  // test's.
  compare_energies("N-body Plummer", make_plummer(3000, 5), grav, tstep, 30, 5e-5);
}
