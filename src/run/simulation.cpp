#include "run/simulation.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>

#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/part_range.hpp"
#include "io/checkpoint.hpp"
#include "io/durable_file.hpp"
#include "io/input_validation.hpp"
#include "io/snapshot.hpp"
#include "run/device.hpp"
#include "run/energy_csv.hpp"
#include "run/health.hpp"
#include "run/health_kern.hpp"
#include "run/module_registry.hpp"
#include "run/mpi_params.hpp"
#include "run/particle_changes.hpp"
#include "run/program_schema.hpp"
#include "run/progress.hpp"
#include "setups/initial_conditions.hpp"
#include "sph/eos_kern.hpp"
#include "timestep/block_timeline_kern.hpp"

namespace mpsph {

namespace {
std::atomic<bool> g_stop_requested{false};

Config load_config(const RunOptions& opt, std::string* checkpoint_yaml) {
  std::vector<std::string> overrides = opt.overrides;
  if (opt.device) overrides.push_back("run.device=" + *opt.device);
  if (opt.output_dir) overrides.push_back("run.output_dir=" + *opt.output_dir);
  if (!opt.config_path.empty())
    return Config::from_file(opt.config_path, program_schema(), overrides);
  if (opt.restart_path.empty())
    throw Error("no config file given (usage: mpsph run <config.yaml>)");
  // Restart without a config: the checkpoint carries the resolved config of the run.
  return Config::from_string(*checkpoint_yaml, "checkpoint '" + opt.restart_path + "'",
                             program_schema(), overrides);
}
}  // namespace

void Simulation::request_stop() {
  g_stop_requested = true;
}

template <class F>
void Simulation::on_root(F&& f) const {
  if (!ranks_.distributed()) {
    f();
    return;
  }
  std::string err;
  if (ranks_.root()) try {
      f();
    } catch (const Error& e) {
      err = e.what();
      if (err.empty()) err = "error on rank 0";
    }
  ranks_.broadcast(err);
  if (!err.empty()) throw Error(err);
}

template <class F>
void Simulation::on_every_rank(const std::string& what, F&& f) const {
  std::string err;
  try {
    f();
  } catch (const Error& e) {
    err = e.what();
    if (err.empty()) err = what + " failed";
  }
  if (ranks_.any(!err.empty()))
    throw Error(err.empty() ? what + " failed on another rank (its message says why)" : err);
}

template <class F>
void Simulation::write_in_turn(const std::string& path, const char* what, F&& part) const {
  // Rank 0 first (it creates the file), then the others one by one: each turn ends with an
  // agreement, so an error on any rank stops every rank (the temporary file removed).
  const std::string doing = std::string("writing ") + what + " '" + path + "'";
  try {
    for (int r = 0; r < ranks_.size(); ++r)
      on_every_rank(doing, [&] {
        if (r == ranks_.rank()) part();
      });
    on_every_rank(doing, [&] {
      if (ranks_.root()) commit_parts(path, what);
    });
  } catch (const Error&) {
    if (ranks_.root()) discard_parts(path);
    throw;
  }
}

namespace {

// For the file written in turn: each entry of `mine` summed over the ranks (total) and over the
// ranks before this one (first; collective).
void rank_rows(const Ranks& ranks, const std::vector<uint64_t>& mine, std::vector<uint64_t>& total,
               std::vector<uint64_t>& first) {
  const std::vector<uint64_t> all = ranks.all_gather(mine);
  const std::size_t k = mine.size();
  total.assign(k, 0);
  first.assign(k, 0);
  for (int r = 0; r < ranks.size(); ++r)
    for (std::size_t f = 0; f < k; ++f) {
      total[f] += all[std::size_t(r) * k + f];
      if (r < ranks.rank()) first[f] += all[std::size_t(r) * k + f];
    }
}

}  // namespace

namespace {

// What needs every rank's part of a checkpoint or of initial conditions read in parts
// (collective; the same error on every rank): some particles, enough gas, ids given once and,
// with `positions`, no two particles at one position.
void check_parts_together(const Ranks& ranks, const ParticleStore& s, const ParticleRules& rules,
                          const std::string& ctx, bool positions) {
  if (!ranks.any(s.size() > 0)) throw Error(ctx + ": no particles");
  uint64_t n_gas = 0;
  for (const uint64_t g : ranks.all_gather({uint64_t(s.count_by_type()[kGas])})) n_gas += g;
  check_gas_count(std::size_t(n_gas), rules, ctx);
  if (const auto id = ranks.repeated(s.id, 1))
    throw Error(ctx + ": id " + std::to_string((*id)[0]) + " is given twice");
  if (!positions) return;
  // The positions' bits (-0 as +0, which compares equal to it).
  std::vector<uint64_t> bits(3 * s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x[3] = {s.pos[i].x + 0.0, s.pos[i].y + 0.0, s.pos[i].z + 0.0};
    std::memcpy(&bits[3 * i], x, sizeof x);
  }
  if (const auto at = ranks.repeated(std::move(bits), 3)) {
    double x[3];
    std::memcpy(x, at->data(), sizeof x);
    throw Error(ctx + ": two particles at the same position (" + format_number("%.9g", x[0]) +
                ", " + format_number("%.9g", x[1]) + ", " + format_number("%.9g", x[2]) + ")");
  }
}

// The parts' total momentum removed: every rank subtracts the mean velocity of all particles
// (collective; the sums over the ranks in rank order, the same on every rank).
void remove_momentum_of_parts(const Ranks& ranks, ParticleStore& s) {
  double mine[4] = {0, 0, 0, 0};  // momentum, mass
  for (std::size_t i = 0; i < s.size(); ++i) {
    mine[0] += s.mass[i] * s.vel[i].x, mine[1] += s.mass[i] * s.vel[i].y;
    mine[2] += s.mass[i] * s.vel[i].z, mine[3] += s.mass[i];
  }
  std::vector<uint64_t> bits(4);
  std::memcpy(bits.data(), mine, sizeof mine);
  const std::vector<uint64_t> all = ranks.all_gather(bits);
  double sum[4] = {0, 0, 0, 0};
  for (std::size_t r = 0; r < all.size() / 4; ++r) {
    double v[4];
    std::memcpy(v, &all[4 * r], sizeof v);
    for (int k = 0; k < 4; ++k) sum[k] += v[k];
  }
  if (!(sum[3] > 0)) return;
  const Vec3d shift{sum[0] / sum[3], sum[1] / sum[3], sum[2] / sum[3]};
  for (std::size_t i = 0; i < s.size(); ++i) s.vel[i] -= shift;
}

}  // namespace

void Simulation::read_checkpoint_in_parts(const std::string& path, CheckpointState& ckpt) {
  const std::string doing = "reading checkpoint '" + path + "'";
  uint64_t n = 0;
  on_every_rank(doing, [&] { n = checkpoint_particles(path); });
  const PartRange mine = part_range(n, uint64_t(ranks_.rank()), uint64_t(ranks_.size()));
  CheckpointPart part;
  part.total = n;
  part.first = mine.first;
  std::vector<uint8_t> types;
  on_every_rank(doing, [&] { types = read_checkpoint_types(path, mine.first, mine.count); });
  rank_rows(ranks_, checkpoint_field_rows(types), part.field_total, part.field_first);
  on_every_rank(doing, [&] {
    store_ = read_checkpoint_part(path, part, std::move(types), ranks_.root() ? &ckpt : nullptr);
  });
}

ParticleStore& Simulation::file_particles(ParticleStore& scratch) {
  backend_->sync_to_host();
  if (!ranks_.distributed()) return store_;
  scratch = ranks_.gather(store_);
  return scratch;
}

Simulation::Simulation(const RunOptions& opt) : ranks_(opt.ranks ? *opt.ranks : one_process()) {
  quiet_ = opt.quiet;
  speaks_ = !quiet_ && ranks_.root();
  CheckpointState ckpt;
  if (!opt.restart_path.empty()) {
    // Across ranks each rank reads a range of the particles and the first order stage moves them
    // to their domains. The stages before it expect the gas first: a checkpoint of ranks lists
    // each rank's particles of every type in turn, so the particles are ordered by type (stably:
    // a file of one process, already in that order, is read as it is).
    if (ranks_.distributed())
      read_checkpoint_in_parts(opt.restart_path, ckpt);
    else
      store_ = read_checkpoint(opt.restart_path, &ckpt);
    std::vector<std::size_t> perm(store_.size());
    std::iota(perm.begin(), perm.end(), std::size_t(0));
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::size_t a, std::size_t b) { return store_.type[a] < store_.type[b]; });
    store_.permute(perm);
    broadcast_checkpoint_state(ranks_, ckpt);
  }

  config_ = load_config(opt, &ckpt.config_yaml);
  run_ = run_params_from(config_);
  units_ = UnitSystem::from_config(config_);
  sph_ = sph_params_from(config_);
  eos_ = eos_params_from(config_);
  grav_ = gravity_params_from(config_);
  tstep_ = timestep_params_from(config_);
  if (run_.threads > 0) omp_set_num_threads(run_.threads);

  // Across ranks the backend is the ranks' (run/mpi/rank_backend.hpp): its stages run on the host
  // (so the modules' kind is the CPU's), its SPH passes and gravity tree on a GPU when one is
  // asked for or present.
  const Device requested = parse_device(run_.device);
  const Device device = ranks_.distributed() ? Device::Cpu : resolve_device(requested);
  const Backend kind = device == Device::Gpu ? Backend::Gpu : Backend::Cpu;
  modules_ = make_modules(config_, units_, kind);
  for (const auto& m : modules_) {
    modules_integrate_u_ = modules_integrate_u_ || m->integrates_internal_energy();
    for (const EnergyTerm& t : m->energy_terms()) energy_terms_.push_back(t);
  }
  energy_accounts_.assign(energy_terms_.size(), 0.0);
  check_eos_compatibility();
  unsigned field_groups = 0;
  for (const auto& m : modules_) field_groups |= m->device_field_groups();
  const StepContext ctx{store_, box_,     sph_,          eos_,        grav_,
                        tstep_, units_.G, energy_terms_, field_groups};
  if (ranks_.distributed())
    backend_ = ranks_.make_backend(ctx, requested, modules_, mpi_params_from(config_));
  else
    backend_ = kind == Backend::Gpu ? make_gpu_backend(ctx) : make_cpu_backend(ctx);
  if (run_.timing_sync) timer_.set_fence([this] { backend_->fence(); });

  // Every input is read and checked before the output directory is touched, so that a bad input
  // leaves no output behind.
  ParticleRules rules;
  rules.n_neighbours = sph_.n_neighbours;
  rules.needs_internal_energy = eos_.kind == EosKind::Adiabatic;
  for (int t : {int(kGas), int(kDarkMatter), 3, 4}) rules.handled[std::size_t(t)] = true;
  for (const auto& m : modules_)
    for (int t : m->particle_types()) rules.handled[std::size_t(t)] = true;
  const bool restart = !opt.restart_path.empty();
  std::vector<std::string> setup_notes;
  if (restart) {
    if (ranks_.distributed()) {
      // Each rank checks its part; the gas count and the ids' uniqueness over all of them.
      const std::string ctx = "checkpoint '" + opt.restart_path + "'";
      on_every_rank("checking " + ctx,
                    [&] { validate_checkpoint_part(store_, rules, opt.restart_path); });
      check_parts_together(ranks_, store_, rules, ctx, false);
    } else {
      validate_checkpoint_particles(store_, rules, opt.restart_path);
    }
    restore_state(ckpt, opt.restart_path);
  } else {
    // Across ranks rank 0 makes or reads the initial conditions and the first order stage
    // scatters them - or, for a setup made in parts, each rank makes its own part (no process
    // holds them all) and the first order stage moves them to their domains.
    if (ranks_.distributed() && made_in_parts(config_)) {
      std::string file;
      bool zero_momentum = false;
      on_every_rank("making the initial conditions", [&] {
        InitialState init = make_initial_state_part(config_, std::size_t(ranks_.rank()),
                                                    std::size_t(ranks_.size()));
        if (!init.file.empty())
          validate_initial_conditions_part(init.particles, init.box, rules, init.file,
                                           init.datasets);
        store_ = std::move(init.particles);
        box_ = init.box;
        time_ = init.time;
        file = init.file;
        zero_momentum = init.zero_momentum;
      });
      if (zero_momentum) remove_momentum_of_parts(ranks_, store_);
      // A file read in parts (setup.type: file): what needs every part, checked together.
      if (!file.empty())
        check_parts_together(ranks_, store_, rules, "initial conditions '" + file + "'", true);
    } else {
      on_root([&] {
        InitialState init = make_initial_state(config_);
        if (!init.file.empty())
          validate_initial_conditions(init.particles, init.box, rules, init.file, init.datasets);
        store_ = std::move(init.particles);
        setup_notes = std::move(init.notes);
        box_ = init.box;
        time_ = t_start_ = init.time;
      });
    }
    broadcast_box_and_time(ranks_, box_, time_);
    t_start_ = time_;
    if (run_.t_end <= time_)
      throw Error("run.t_end = " + std::to_string(run_.t_end) +
                  " must be later than the initial time " + std::to_string(time_));
  }

  backend_->check_box();
  on_root([&] {
    std::error_code ec;
    std::filesystem::create_directories(run_.output_dir, ec);
    if (ec || !std::filesystem::is_directory(run_.output_dir))
      throw Error("cannot create output directory '" + run_.output_dir +
                  "': " + (ec ? ec.message() : "a file of that name is in the way"));
    write_text_durably(run_.output_dir + "/config_resolved.yaml", config_.resolved_yaml());
  });

  log("mpsph " MPSPH_VERSION ", backend " +
      std::string(ranks_.distributed() ? backend_->name() : device_name(device)) + ", " +
      std::to_string(omp_get_max_threads()) + " OpenMP threads" +
      (ranks_.distributed() ? " per rank, " + std::to_string(ranks_.size()) + " MPI ranks" : ""));
  log("units: " + units_.describe());
  {
    std::string line = "physics modules:";
    for (const auto& m : modules_) line += " " + m->section() + " = " + m->model() + ";";
    line.pop_back();
    log(line);
    std::string steps = "step:";
    for (const std::string& st : stage_names()) steps += (steps.size() > 5 ? " -> " : " ") + st;
    log(steps);
    log(describe_timestepping(tstep_, config_));
  }
  for (const std::string& line : setup_notes) log("setup: " + line);

  if (restart) {
    log("restarted from '" + opt.restart_path + "' at t = " + std::to_string(time_) + ", step " +
        std::to_string(step_));
    // Rows a killed run wrote after this checkpoint are computed again: drop them first.
    on_root([&] {
      const std::string csv = run_.output_dir + "/energy.csv";
      trim_energy_csv(csv, step_);
      energy_csv_ = std::fopen(csv.c_str(), "a");
      if (!energy_csv_) throw Error(write_error("cannot append to '" + csv + "'", csv, errno));
      for (const auto& m : modules_) m->open_outputs(run_.output_dir, time_, true);
    });
    backend_->sync_from_host();
    backend_->assume_previous_gravity();
    return;
  }

  {
    static const char* kTypeNames[kNumTypes] = {"gas",           "dark matter", "clouds",
                                                "initial stars", "new stars",   "sinks"};
    // Of every rank (made in parts or read at a restart, each rank holds its own; collective).
    const auto mine = store_.count_by_type();
    std::vector<uint64_t> local(mine.begin(), mine.end());
    local.push_back(store_.size());
    const std::vector<uint64_t> every = ranks_.all_gather(local);
    std::vector<uint64_t> counts(local.size(), 0);
    for (std::size_t k = 0; k < every.size(); ++k) counts[k % local.size()] += every[k];
    std::string by_type;
    for (int t = 0; t < kNumTypes; ++t)
      if (counts[std::size_t(t)])
        by_type += (by_type.empty() ? "" : ", ") + std::to_string(counts[std::size_t(t)]) + " " +
                   kTypeNames[t];
    log("initial conditions: " + std::to_string(counts.back()) + " particles (" + by_type +
        "), t = " + std::to_string(time_));
  }

  backend_->set_next_id(first_free_id(store_));
  backend_->sync_from_host();
  compute_forces();
  timer_.time("time step", [&] { backend_->limit_steps(); });
  run_module_stages(Slot::StepLimit, time_);
  timer_.time("time step", [&] {
    dt_ = backend_->timestep().dt;
    if (tstep_.dt_max > 0.0) dt_ = std::min(dt_, tstep_.dt_max);
  });
  check_health();
  conserved0_ = conserved();

  on_root([&] { write_energy_csv_header(); });
  write_diagnostics_row();
  if (run_.initial_snapshot)
    write_snapshot_now();
  else
    ++next_snapshot_;  // the later outputs keep their numbers
}

void Simulation::write_energy_csv_header() {
  const std::string csv = run_.output_dir + "/energy.csv";
  energy_csv_ = std::fopen(csv.c_str(), "w");
  if (!energy_csv_) throw Error(write_error("cannot write '" + csv + "'", csv, errno));
  const double e_cgs = units_.to_cgs({0, 1, 2});
  char scale[160];
  if (units_.nbody)
    std::snprintf(scale, sizeof scale, "N-body units (G = 1): no cgs scale");
  else
    std::snprintf(scale, sizeof scale, "code time = %.6e s, code energy = %.6e erg",
                  units_.time_cgs(), e_cgs);
  std::fprintf(
      energy_csv_,
      "# mpsph energy and momentum diagnostics, summed in double over all particles\n"
      "# units: %s; time and dt in code time, energies in code energy, momentum in code "
      "mass * code velocity, angular momentum (about the origin, with the spin of sink "
      "particles) in code mass * code length * code velocity\n"
      "# E_total = E_kinetic + E_thermal + E_potential + the physics modules' energy accounts "
      "(columns between E_potential and E_total: energy each module took out of the particles "
      "so far, e.g. E_radiated by cooling); rel_error = (E_total - E_total(t0)) / |E_total(t0)|\n",
      scale);
  if (!eos_evolves_u(eos_))
    std::fprintf(energy_csv_,
                 "# eos.type = %s: u = P/((gamma-1) rho) is set from the density, not evolved, so "
                 "E_thermal follows the EOS and E_total is NOT conserved: the EOS removes (or "
                 "supplies) the compression work and the viscous heat; rel_error is no accuracy "
                 "measure (docs/eos.md)\n",
                 eos_type_name(eos_.kind));
  for (const auto& m : modules_)
    if (!m->diagnostic_header().empty())
      std::fprintf(energy_csv_, "# %s\n", m->diagnostic_header().c_str());
  std::string columns = "step,time,dt,E_kinetic,E_thermal,E_potential,";
  for (const EnergyTerm& t : energy_terms_) columns += t.column + ",";
  columns += "E_total,rel_error,px,py,pz,Lx,Ly,Lz";
  for (const auto& m : modules_)
    for (const std::string& c : m->diagnostic_columns()) columns += "," + c;
  columns += "\n";
  std::fputs(columns.c_str(), energy_csv_);
  for (const auto& m : modules_) m->open_outputs(run_.output_dir, time_, false);
}

void Simulation::restore_state(const CheckpointState& ckpt, const std::string& path) {
  const std::string ctx = "checkpoint '" + path + "': /State";
  auto scalar = [&](const std::string& name) {
    const auto it = ckpt.scalars.find(name);
    if (it == ckpt.scalars.end())
      throw Error(ctx + "/Scalars has no attribute '" + name + "' (written by every mpsph run)");
    if (!std::isfinite(it->second))
      throw Error(ctx + "/Scalars attribute '" + name + "' = " + std::to_string(it->second) +
                  " is not finite");
    return it->second;
  };
  if (!std::isfinite(ckpt.time))
    throw Error(ctx + " Time = " + std::to_string(ckpt.time) + " is not finite");
  if (!(std::isfinite(ckpt.dt) && ckpt.dt > 0))
    throw Error(ctx + " TimeStep = " + std::to_string(ckpt.dt) + " is not a positive time step");
  if (ckpt.step < 0 || ckpt.next_snapshot < 0)
    throw Error(ctx + " Step = " + std::to_string(ckpt.step) + " and NextSnapshot = " +
                std::to_string(ckpt.next_snapshot) + " must not be negative");
  box_.periodic = scalar("box_periodic") != 0.0;
  box_.lo = {scalar("box_lo_x"), scalar("box_lo_y"), scalar("box_lo_z")};
  box_.size = {scalar("box_size_x"), scalar("box_size_y"), scalar("box_size_z")};
  if (box_.periodic && !(box_.size.x > 0 && box_.size.y > 0 && box_.size.z > 0))
    throw Error(ctx + "/Scalars: the periodic box has a size that is not positive");
  time_ = ckpt.time;
  dt_ = ckpt.dt;
  step_ = ckpt.step;
  const double segment = scalar("segment");
  const double next_id = scalar("next_id");
  if (segment < 0 || segment > 9e18 || next_id < 1 || next_id > 9007199254740992.0)
    throw Error(ctx + "/Scalars: segment = " + std::to_string(segment) +
                " or next_id = " + std::to_string(next_id) + " is out of range");
  segment_ = long(segment);
  next_snapshot_ = ckpt.next_snapshot;
  t_start_ = scalar("t_start");
  for (std::size_t k = 0; k < energy_terms_.size(); ++k) {
    const auto it = ckpt.scalars.find("energy:" + energy_terms_[k].column);
    if (it == ckpt.scalars.end())
      throw Error("checkpoint '" + path + "' has no account of " + energy_terms_[k].column +
                  ": it was written by a run without the module that "
                  "keeps it, which cannot be added on restart");
    energy_accounts_[k] = it->second;
  }
  backend_->set_next_id(uint64_t(next_id));
  conserved0_.kinetic = scalar("E0_kinetic");
  conserved0_.thermal = scalar("E0_thermal");
  conserved0_.potential = scalar("E0_potential");
}

Simulation::~Simulation() {
  if (energy_csv_) std::fclose(energy_csv_);
}

// ------------------------------------------------------------------------------ the main loop

bool Simulation::run() {
  Progress progress(t_start_, run_.t_end, stdout);
  const auto wall0 = std::chrono::steady_clock::now();
  auto last_checkpoint = wall0;
  long steps_this_run = 0;
  double updates_this_run = 0;  // particle updates (force evaluations), summed over the steps
  // timing.txt and step_profile.txt over this run's steps, at the end and at a stop on request.
  auto write_timing = [&] {
    char tail[256];
    std::snprintf(tail, sizeof tail,
                  "backend: %s, %d OpenMP threads\nsteps: %ld this run, %ld in total\n"
                  "particle updates: %.0f\n",
                  backend_->name(), omp_get_max_threads(), steps_this_run, step_, updates_this_run);
    // Per-step columns over this run's steps (the timer covers this run only, also after a
    // restart).
    const std::string table =
        timer_.table(steps_this_run) + tail + backend_->timing_notes(steps_this_run);
    log("stage timing (" + std::to_string(steps_this_run) + " steps this run, wall " +
        std::to_string(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count()) +
        " s):\n" + table);
    on_root([&] {
      write_text_durably(run_.output_dir + "/timing.txt", table);
      write_text_durably(run_.output_dir + "/step_profile.txt", timer_.step_profile());
    });
  };
  bool reached_end = false;
  const bool block = tstep_.scheme == TimestepScheme::Block;
  double rel_error = 0.0;  // at the last synchronisation point
  bool stop_announced = false;

  while (true) {
    if (time_ >= run_.t_end * (1 - 1e-12)) {
      reached_end = true;
      break;
    }
    if (run_.max_steps > 0 && steps_this_run >= run_.max_steps) break;
    if (tstep_.dt_min > 0 && dt_ < tstep_.dt_min)
      throw Error("time step " + std::to_string(dt_) + " fell below timestep.dt_min = " +
                  std::to_string(tstep_.dt_min) + " at t = " + std::to_string(time_));

    // The next synchronisation segment, which ends exactly on the next output time when it
    // reaches it: one step of dt under the global scheme, at most dt_max under the block one.
    const double t_out = next_output_time();
    const double span = block && tstep_.dt_max > 0 ? tstep_.dt_max : dt_;
    // A segment that would end within output_eps() before the output time ends on it: from
    // there next_output_time() would count that output as passed and it would be skipped (block
    // segments of dt_max that add up to just below a requested time).
    const bool hits_output = time_ + span >= t_out - output_eps();
    const double length = hits_output ? t_out - time_ : span;
    const double t0 = time_;
    if (!backend_->begin_segment(length, !block)) throw Error(too_short_message(length, t0));
    for (;;) {
      const int64_t now = backend_->next_tick();
      const std::size_t n_active = substep(t0, length, now);
      timer_.end_step(n_active, backend_->particle_count());
      ++steps_this_run;
      updates_this_run += double(n_active);
      if (speaks_)
        progress.update(step_, time_, dt_, n_active, backend_->particle_count(), rel_error);
      if (now == kTicks) break;
      // Checkpoints come at synchronisation points only: a stop asked for inside a block
      // segment waits for its end, which can take a while in a collapse; say so at once.
      if (g_stop_requested && !stop_announced) {
        stop_announced = true;
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "stop requested: finishing the current segment (to t = %.9g, the next "
                      "synchronisation point) before the checkpoint",
                      t0 + length);
        if (speaks_) progress.finish();
        log(msg);
      }
    }
    time_ = hits_output ? t_out : t0 + length;
    ++segment_;

    timer_.time("diagnostics / I/O", [&] {
      if (segment_ % run_.diagnostics_every == 0 || hits_output) {
        write_diagnostics_row();
        bool first = true;
        for (const auto& m : modules_)
          for (const std::string& line : m->take_log_lines()) {
            if (first && speaks_) progress.finish();
            first = false;
            log(line);
          }
      }
      if (hits_output) write_snapshot_now();
      const double minutes =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint)
              .count() /
          60.0;
      // Across ranks the clocks differ: a checkpoint when any rank's says it is due.
      if (ranks_.any(
              (run_.checkpoint_every_steps > 0 && segment_ % run_.checkpoint_every_steps == 0) ||
              (run_.checkpoint_every_minutes > 0 && minutes >= run_.checkpoint_every_minutes))) {
        write_checkpoint_now("periodic");
        last_checkpoint = std::chrono::steady_clock::now();
      }
    });
    if (!quiet_) {
      const Conserved c = conserved();
      const double e0 = conserved0_.total();
      rel_error = e0 != 0 ? (c.total() - e0) / std::fabs(e0) : 0.0;
    }
    if (ranks_.any(g_stop_requested)) {
      if (speaks_) progress.finish();
      write_checkpoint_now("interrupted");
      write_timing();
      const std::string program = ranks_.distributed()
                                      ? "mpiexec -n " + std::to_string(ranks_.size()) + " mpsph-mpi"
                                      : std::string("mpsph");
      log("stopped on request at t = " + std::to_string(time_) + "; continue with: " + program +
          " run --restart " + run_.output_dir + "/checkpoint.h5");
      return false;
    }
  }
  if (speaks_) progress.finish();
  if (run_.checkpoint_at_end) write_checkpoint_now("end of run");
  write_timing();
  return reached_end;
}

std::size_t Simulation::substep(double t0, double length, int64_t now) {
  const double tick_len = length / double(kTicks);
  const double t = t0 + double(now) * tick_len;
  timer_.time("predict", [&] { backend_->predict(now); });
  compute_forces();
  run_module_stages(Slot::AfterForces, t);
  timer_.time("correct", [&] { backend_->correct(!modules_integrate_u_ && eos_evolves_u(eos_)); });
  run_module_stages(Slot::AfterCorrect, t);
  time_ = t;
  ++step_;
  timer_.time("time step", [&] { backend_->limit_steps(); });
  run_module_stages(Slot::StepLimit, t);
  timer_.time("time step", [&] {
    const StepTimes st = backend_->timestep();
    if (!st.rungs_ok) throw Error(too_short_message(length, t0));
    dt_ = st.dt;
    if (tstep_.dt_max > 0.0) dt_ = std::min(dt_, tstep_.dt_max);
  });
  const std::size_t n_active = backend_->active_count();
  check_health();
  if (!energy_terms_.empty()) {
    const std::vector<double> e = backend_->energy_last_step();
    for (std::size_t k = 0; k < e.size(); ++k) energy_accounts_[k] += e[k];
  }
  return n_active;
}

void Simulation::check_eos_compatibility() const {
  if (eos_evolves_u(eos_)) return;
  const std::string where = config_.origin("eos.type") + ": eos.type " + eos_type_name(eos_.kind) +
                            " sets u from the density (docs/eos.md)";
  // A module that integrates u (radiative cooling) would fight the EOS: the barotropic laws
  // already stand for the balance of heating and cooling of the gas they describe.
  for (const auto& m : modules_)
    if (m->integrates_internal_energy())
      throw Error(where + ", but " + m->section() + ".model " + m->model() +
                  " integrates u: use eos.type adiabatic with " + m->section() + ", or " +
                  m->section() + ".model none with a non-adiabatic EOS");
  if (tstep_.use_energy)
    throw Error(where +
                ": the time-step criterion u/|du/dt| (timestep.use_energy) has no "
                "meaning when u is not evolved; set timestep.use_energy: false");
}

std::string Simulation::too_short_message(double length, double t0) const {
  char msg[320];
  std::snprintf(msg, sizeof msg,
                "a particle needs a time step below %.3e (the smallest rung, segment / 2^%d) in "
                "the segment from t = %.9g: lower timestep.dt_max, or check the run for a "
                "collapse (timestep.dt_min stops such runs earlier)",
                std::ldexp(length, -kMaxRung), kMaxRung, t0);
  return msg;
}

void Simulation::run_module_stages(Slot slot, double time) {
  for (const auto& m : modules_) {
    const std::vector<ModuleStage> stages = m->stages();
    for (std::size_t k = 0; k < stages.size(); ++k)
      if (stages[k].slot == slot)
        timer_.time(stages[k].name, [&] { backend_->run_module_stage(*m, k, time, step_); });
  }
}

std::vector<std::string> Simulation::stage_names() const {
  std::vector<std::string> names = {"predict", "order + trees", "smoothing lengths",
                                    "density", "prepare force", "SPH forces",
                                    "gravity", "end force"};
  for (const auto& m : modules_)
    for (const ModuleStage& st : m->stages())
      if (st.slot == Slot::AfterForces) names.push_back(st.name);
  names.push_back("correct");
  for (const auto& m : modules_)
    for (const ModuleStage& st : m->stages())
      if (st.slot == Slot::AfterCorrect) names.push_back(st.name);
  names.push_back("time step");
  for (const auto& m : modules_)
    for (const ModuleStage& st : m->stages())
      if (st.slot == Slot::StepLimit) names.push_back(st.name);
  names.push_back("diagnostics / I/O");
  return names;
}

void Simulation::check_health() {
  const HealthReport h = backend_->health();
  const bool dt_ok = std::isfinite(dt_) && dt_ > 0.0;
  if (h.ok() && dt_ok) return;
  // Across ranks (h.bits and dt are the same on every rank) the particles are gathered on rank 0,
  // which finds the first offender among them, writes the diagnostic snapshot and sends the
  // diagnosis to every rank.
  ParticleStore gathered;
  ParticleStore& all = file_particles(gathered);
  std::string msg;
  if (ranks_.root()) msg = health_diagnosis(all, h);
  ranks_.broadcast(msg);
  throw HealthError(msg);
}

std::string Simulation::health_diagnosis(ParticleStore& all, HealthReport h) {
  if (ranks_.distributed() && !h.ok()) h = mpsph::check_health(all.view());
  char where[128];
  std::snprintf(where, sizeof where, "step %ld (t = %.9g)", step_, time_);
  std::string msg;
  if (!h.ok()) {
    const uint32_t own = particle_health(all.view(), h.first);
    msg = std::string(where) + ": " + health_field_name(own) +
          " is not finite or not physical (the earliest stage of the step whose output is bad); "
          "first offending " +
          describe_particle_health(all, h.first) +
          "\n  bad fields anywhere in the run: " + health_fields(h.bits);
  } else {
    char b[96];
    std::snprintf(b, sizeof b, "the next time step dt = %g is not finite and positive", dt_);
    msg = std::string(where) + ": " + b + " (time step stage)";
  }
  char name[64];
  std::snprintf(name, sizeof name, "/diagnostic_step%06ld.h5", step_);
  const std::string path = run_.output_dir + name;
  try {
    SnapshotMeta meta;
    meta.time = time_;
    meta.step = step_;
    meta.units = units_;
    meta.box = box_;
    meta.config_yaml = config_.resolved_yaml();
    write_snapshot(path, all, meta, optional_snapshot_fields());
    msg += "\n  diagnostic snapshot with every field: " + path;
  } catch (const Error& e) {
    msg += "\n  the diagnostic snapshot could not be written: " + std::string(e.what());
  }
  msg += "\n  the last good checkpoint, if one was written, is " + run_.output_dir +
         "/checkpoint.h5 (not overwritten)";
  return msg;
}

std::array<std::size_t, kNumTypes> Simulation::count_by_type() {
  backend_->sync_to_host();
  return store_.count_by_type();
}

void Simulation::compute_forces() {
  StepBackend& b = *backend_;
  timer_.time("order + trees", [&] { b.order(); });
  // A run starts with more than N_B gas particles (input validation); when sinks (or a phase
  // change) leave N_B or fewer, the backends skip the SPH stages and those particles move without
  // pressure forces.
  const std::size_t n_gas = b.gas_count();
  if (n_gas > 0 && !sph_.enough_gas(n_gas) && !told_no_sph_) {
    told_no_sph_ = true;
    log("t = " + format_number("%.6g", time_) + ": only " + std::to_string(n_gas) +
        " gas particles left, too few for SPH (sph.n_neighbours + 1 = " +
        std::to_string(sph_.n_neighbours + 1) +
        "): from here they move without pressure forces, like collisionless particles");
  }
  if (n_gas > 0) {
    timer_.time("smoothing lengths", [&] { b.smoothing_lengths(); });
    timer_.time("density", [&] { b.density(); });
    timer_.time("prepare force", [&] { b.prepare_force(); });
    timer_.time("SPH forces", [&] { b.sph_forces(); });
  }
  timer_.time("gravity", [&] { b.gravity(); });
  timer_.time("end force", [&] { b.end_force(); });
}

// ------------------------------------------------------------------------------ output

const ParticleStore& Simulation::particles() {
  backend_->sync_to_host();
  return store_;
}

Conserved Simulation::conserved() {
  Conserved c = backend_->conserved();
  for (double e : energy_accounts_) c.accounted += e;
  return c;
}

double Simulation::output_eps() const {
  return 1e-12 * std::max(1.0, std::fabs(run_.t_end));
}

double Simulation::next_output_time() const {
  double t = run_.t_end;
  const double eps = output_eps();
  for (double ts : run_.snapshot_times)
    if (ts > time_ + eps) t = std::min(t, ts);
  if (run_.snapshot_interval > 0) {
    const double k = std::floor((time_ - t_start_) / run_.snapshot_interval + 1e-9) + 1;
    t = std::min(t, t_start_ + k * run_.snapshot_interval);
  }
  return t;
}

void Simulation::write_diagnostics_row() {
  // Across ranks the sums are over all ranks and rank 0 writes the row.
  const Conserved c = conserved();
  std::vector<std::vector<double>> module_values;
  for (const auto& m : modules_)
    if (!m->diagnostic_columns().empty()) module_values.push_back(backend_->module_diagnostics(*m));
  on_root([&] { write_diagnostics_line(c, module_values); });
  // The modules' own rows (sinks.csv, sfr.csv), timed with the rest of "diagnostics / I/O"; they
  // see the accounts of this energy.csv row.
  std::vector<EnergyAccount> accounts;
  for (std::size_t k = 0; k < energy_terms_.size(); ++k)
    accounts.push_back({energy_terms_[k].column, energy_accounts_[k]});
  for (const auto& m : modules_) {
    const std::vector<ModuleStage> stages = m->stages();
    for (std::size_t k = 0; k < stages.size(); ++k)
      if (stages[k].slot == Slot::Diagnostics)
        backend_->run_module_output(*m, k, time_, step_, accounts);
  }
}

void Simulation::write_diagnostics_line(const Conserved& c,
                                        const std::vector<std::vector<double>>& module_values) {
  // energy.csv stays open: rows would go on into a directory removed or moved away (and be lost
  // with it) until the next snapshot or checkpoint noticed. Stop at once instead.
  std::error_code ec;
  if (!std::filesystem::is_directory(run_.output_dir, ec))
    throw Error("the output directory '" + run_.output_dir +
                "' no longer exists (removed or moved while the run was going?); stopping at "
                "step " +
                std::to_string(step_) + ", t = " + std::to_string(time_));
  const double e0 = conserved0_.total();
  std::fprintf(energy_csv_, "%ld,%.17g,%.10g,%.17g,%.17g,%.17g,", step_, time_, dt_, c.kinetic,
               c.thermal, c.potential);
  for (double e : energy_accounts_) std::fprintf(energy_csv_, "%.17g,", e);
  std::fprintf(energy_csv_, "%.17g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g", c.total(),
               e0 != 0 ? (c.total() - e0) / std::fabs(e0) : 0.0, c.momentum.x, c.momentum.y,
               c.momentum.z, c.angular_momentum.x, c.angular_momentum.y, c.angular_momentum.z);
  for (const std::vector<double>& values : module_values)
    for (double x : values) std::fprintf(energy_csv_, ",%.17g", x);
  std::fputc('\n', energy_csv_);
  // One row is one write(2) (the buffer is empty before it); a full disk fails it here.
  if (std::fflush(energy_csv_) != 0 || std::ferror(energy_csv_)) {
    const std::string csv = run_.output_dir + "/energy.csv";
    throw Error(write_error("cannot write '" + csv + "'", csv, errno));
  }
}

void Simulation::write_snapshot_now() {
  // Each rank writes its own particles (across ranks in turn: io/snapshot.hpp SnapshotPart), so
  // no process holds more than its own.
  backend_->sync_to_host();
  for (const auto& m : modules_) m->prepare_output(store_);
  char name[64];
  std::snprintf(name, sizeof name, "/snapshot_%04ld.h5", next_snapshot_);
  const std::string path = run_.output_dir + name;
  SnapshotMeta meta;
  meta.time = time_;
  meta.step = step_;
  meta.units = units_;
  meta.box = box_;
  meta.config_yaml = config_.resolved_yaml();
  for (const auto& m : modules_)
    for (const std::string& flag : m->snapshot_flags()) set_snapshot_flag(meta, flag);
  if (!ranks_.distributed()) {
    write_snapshot(path, store_, meta, run_.snapshot_fields);
  } else {
    const std::array<uint64_t, kNumTypes> mine = snapshot_counts(store_);
    std::vector<uint64_t> total, first;
    rank_rows(ranks_, std::vector<uint64_t>(mine.begin(), mine.end()), total, first);
    SnapshotPart part;
    part.creates = ranks_.root();
    std::copy(total.begin(), total.end(), part.total.begin());
    std::copy(first.begin(), first.end(), part.first.begin());
    write_in_turn(path, "snapshot",
                  [&] { write_snapshot_part(path, store_, meta, run_.snapshot_fields, part); });
  }
  ++next_snapshot_;
}

void Simulation::write_checkpoint_now(const char* reason) {
  CheckpointState st;
  st.time = time_;
  st.dt = dt_;
  st.step = step_;
  st.next_snapshot = next_snapshot_;
  st.scalars["t_start"] = t_start_;
  st.scalars["segment"] = double(segment_);
  for (std::size_t k = 0; k < energy_terms_.size(); ++k)
    st.scalars["energy:" + energy_terms_[k].column] = energy_accounts_[k];
  // Ids below 2^53 are exact in a double scalar (checked when the ids are read).
  st.scalars["next_id"] = double(backend_->next_id());
  st.scalars["E0_kinetic"] = conserved0_.kinetic;
  st.scalars["E0_thermal"] = conserved0_.thermal;
  st.scalars["E0_potential"] = conserved0_.potential;
  st.scalars["box_periodic"] = box_.periodic ? 1.0 : 0.0;
  st.scalars["box_lo_x"] = box_.lo.x;
  st.scalars["box_lo_y"] = box_.lo.y;
  st.scalars["box_lo_z"] = box_.lo.z;
  st.scalars["box_size_x"] = box_.size.x;
  st.scalars["box_size_y"] = box_.size.y;
  st.scalars["box_size_z"] = box_.size.z;
  st.config_yaml = config_.resolved_yaml();
  const std::string path = run_.output_dir + "/checkpoint.h5";
  backend_->sync_to_host();
  if (!ranks_.distributed()) {
    write_checkpoint(path, store_, st);
  } else {
    // Each rank its own particles, in turn (io/checkpoint.hpp CheckpointPart): the rows of each
    // kept field, then the particle count, of every rank.
    std::vector<uint64_t> mine = checkpoint_field_rows(store_);
    mine.push_back(store_.size());
    CheckpointPart part;
    part.creates = ranks_.root();
    rank_rows(ranks_, mine, part.field_total, part.field_first);
    part.total = part.field_total.back();
    part.first = part.field_first.back();
    part.field_total.pop_back();
    part.field_first.pop_back();
    write_in_turn(path, "checkpoint", [&] { write_checkpoint_part(path, store_, st, part); });
  }
  if (std::string(reason) != "periodic") log(std::string("checkpoint (") + reason + "): " + path);
}

void Simulation::log(const std::string& line) const {
  if (speaks_) std::printf("%s\n", line.c_str());
}

}  // namespace mpsph
