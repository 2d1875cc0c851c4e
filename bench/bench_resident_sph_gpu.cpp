// The SPH passes of the device-resident MPI ranks (sph/resident_sph_gpu.hpp) against one GPU's
// (GpuSph on all the gas), on one GPU and without MPI: how much more GPU work the ranks' passes
// do for the same gas, and how much the order of the particles matters. The ways:
//   one GPU        GpuSph on all of it (the single-GPU backend's passes);
//   P part(s)      the gas cut into P parts of consecutive key order (as the ranks' key cuts
//                  cut it), each in a DeviceParticles of its own with its ResidentSph, the halos
//                  traded between them on the host as parallel/resident_sph.cpp trades them (the
//                  first smoothing-length round by the density's rule; its ghosts serve the
//                  density and the forces), each part's passes timed alone on the card;
//   ..., own cube  each part ordered again (DeviceOrder) in the bounding cube of its gas;
//   ..., own cube+others   the same with the setup's other particles beside its gas: the cube
//                  a rank's order stage found before 2026-11-27 (the disk's halo reaches 300 kpc);
//   ..., run's cube        in the cube of all the setup's particles (the decomposition's, in
//                  which the ranks order their particles now);
//   ..., centred / off-centre cube   in a cube of that edge centred on the galaxy, and 0.37
//                  length units off.
// Times are wall clock around each pass with the device synchronised (what timing.txt's "own
// work" of a rank measures), medians of R repeats after one warm-up. "vs one" is the parts'
// summed time over one GPU's: 1.00 when the cut costs the passes nothing but their share.
//
//   bench_resident_sph_gpu [--repeat R] [--parts P ...] [--set disk|evrard] [N_gas ...]
//     defaults: R = 5, P = 1 and 2, set disk, N_gas = 4e6 (the gas of one rank of the disk
//     galaxy at 2e7 particles per GPU)
// The disk: setups/isolated_disk.yaml's model with N_gas gas particles (and 2 100 of the other
// types: only the gas enters the passes), at t = 0. Run from the repository root. Results:
// docs/PERFORMANCE.md, "The order of a rank's particles".
#include <cstdio>

#ifdef MPSPH_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_gpu_support.hpp"
#include "bench_sets.hpp"
#include "core/device_particles.hpp"
#include "core/particle_order_gpu.hpp"
#include "core/wall_clock.hpp"
#include "setups/evrard.hpp"
#include "sph/eos_params.hpp"
#include "sph/resident_sph_gpu.hpp"
#include "sph/sph_gpu.hpp"
#include "sph/sph_params.hpp"

using namespace mpsph;
using bench::check;
using bench::median;

namespace {

// Milliseconds of f, with the device idle before and after.
template <class F>
double timed_ms(F&& f) {
  check(cudaDeviceSynchronize(), "sync");
  const double t0 = wall_seconds();
  f();
  check(cudaDeviceSynchronize(), "sync");
  return 1e3 * (wall_seconds() - t0);
}

// Rows [b, e) of a, then (with `others`) every row of it.
ParticleStore rows(const ParticleStore& a, std::size_t b, std::size_t e,
                   const ParticleStore* others = nullptr) {
  ParticleStore p;
  p.append(a, b, e);
  if (others) p.append(*others, 0, others->size());
  return p;
}

struct Gas {
  ParticleStore s;       // gas only
  ParticleStore others;  // the setup's other particles (the disk's halo reaches 300 kpc)
  Box box;
  SphParams sph;  // the setup's (the disk: N_B = 50)
  EosParams eos;
};

Gas make_gas(const std::string& set, long n_gas) {
  Gas g;
  if (set == "evrard") {
    EvrardParams ep;
    ep.n_target = std::size_t(n_gas);
    g.s = make_evrard(ep);
    return g;
  }
  bench::DiskGas d = bench::disk_gas(n_gas);
  g.s = std::move(d.gas);
  g.others = std::move(d.others);
  g.box = d.box;
  g.sph = d.sph;
  g.eos = d.eos;
  return g;
}

struct Times {
  std::vector<double> h, density, forces;
  void add(double a, double b, double c) {
    h.push_back(a), density.push_back(b), forces.push_back(c);
  }
  double total() const { return median(h) + median(density) + median(forces); }
};

// One part of the cut: its gas on the device, its passes, the halo lists and its ghosts.
struct Part {
  DeviceParticles d;
  std::unique_ptr<ResidentSph> sph;
  std::vector<std::vector<uint32_t>> needed;  // needed[s]: this part's gas part s needs
  std::size_t n_ghosts = 0;
  unsigned char* ghosts = nullptr;  // device records
  std::size_t ghost_bytes = 0;
  Times t;
  std::vector<double> selection;  // ms of its halo selection (needed_by_all), per first round
  double last_selection_ms = 0.0;
  // `sort`: ordered again by DeviceOrder in the bounding cube of its own particles (as a rank's
  // order stage orders them), gas first.
  // `cube`: in that cube (null: the bounding cube of the part's particles).
  Part(const ParticleStore& s, const Box& box, bool sort, const KeyCube* cube) {
    d.upload(s);
    if (sort) {
      DeviceOrder order;
      order.sort(d, box, true, nullptr, cube);
      check(cudaDeviceSynchronize(), "sort");
    }
    sph = std::make_unique<ResidentSph>(d);
  }
  ~Part() { cudaFree(ghosts); }
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ResidentSph::Ghosts received() const { return {ghosts, n_ghosts, true}; }
};

// The halo selection of parallel/resident_sph.cpp among the parts (host-side exchange): each
// part's domain boxes to every part; each part's search boxes near the others' domains; each
// part's gas within the rule of the boxes sent to it.
void select_halos(std::vector<std::unique_ptr<Part>>& parts, const Box& box) {
  const std::size_t P = parts.size();
  std::vector<std::vector<SearchBox>> domains(P);
  for (std::size_t r = 0; r < P; ++r) domains[r] = parts[r]->sph->domain_boxes(box);
  std::vector<std::vector<std::vector<SearchBox>>> near(P);  // near[s][r]
  for (std::size_t s = 0; s < P; ++s) {
    parts[s]->sph->grow_search_boxes(box);
    std::vector<SearchBox> all;
    std::vector<std::size_t> off(P + 1, 0);
    for (std::size_t r = 0; r < P; ++r) {
      if (r != s) all.insert(all.end(), domains[r].begin(), domains[r].end());
      off[r + 1] = all.size();
    }
    near[s] = parts[s]->sph->search_boxes_near(all, off, box);
  }
  for (std::size_t r = 0; r < P; ++r) {
    std::vector<SearchBox> to_r;
    std::vector<std::size_t> off(P + 1, 0);
    for (std::size_t s = 0; s < P; ++s) {
      if (s != r) to_r.insert(to_r.end(), near[s][r].begin(), near[s][r].end());
      off[s + 1] = to_r.size();
    }
    parts[r]->last_selection_ms =
        timed_ms([&] { parts[r]->needed = parts[r]->sph->needed_by_all(to_r, off, box); });
  }
}

// The records of `what` of what each part needs, into its device ghost buffer (in part order).
void send(std::vector<std::unique_ptr<Part>>& parts, ResidentSph::Halo what) {
  const std::size_t P = parts.size();
  for (std::size_t s = 0; s < P; ++s) {
    std::vector<unsigned char> all, one;
    std::size_t n = 0;
    for (std::size_t r = 0; r < P; ++r) {
      if (r == s) continue;
      parts[r]->sph->pack(what, parts[r]->needed[s], one);
      all.insert(all.end(), one.begin(), one.end());
      n += parts[r]->needed[s].size();
    }
    Part& p = *parts[s];
    if (all.size() > p.ghost_bytes) {
      cudaFree(p.ghosts);
      p.ghost_bytes = all.size() + all.size() / 4;
      check(cudaMalloc(&p.ghosts, p.ghost_bytes), "ghost records");
    }
    if (!all.empty())
      check(cudaMemcpy(p.ghosts, all.data(), all.size(), cudaMemcpyHostToDevice), "ghosts");
    p.n_ghosts = n;
  }
}

void print(const char* set, std::size_t n, const std::string& way, double h, double rho,
           double force, double one, const std::string& extra) {
  const double total = h + rho + force;
  std::printf("%-6s %9zu %-24s | %8.2f %8.2f %8.2f | %8.2f | %7.3f | %s\n", set, n, way.c_str(), h,
              rho, force, total, total / one, extra.c_str());
  std::fflush(stdout);
}

// The passes of P parts (parts_of), timed; prints a line against `one`.
void run_parts(const char* name, const Gas& g, std::vector<std::unique_ptr<Part>>& parts,
               const SphParams& sp, const EosParams& eos, int repeat, double one,
               const std::string& label);

void run_set(const std::string& set, long n_gas, const std::vector<int>& part_counts, int repeat) {
  Gas g = make_gas(set, n_gas);
  const SphParams sp = g.sph;
  const EosParams eos = g.eos;
  // Key order and h of every particle (one GPU's), as the ranks find them at a step's start.
  {
    DeviceParticles d;
    d.upload(g.s);
    DeviceOrder order;
    order.sort(d, g.box, false);
    GpuSph sph;
    sph.smoothing_lengths(d.view(), g.box, sp);
    sph.density(d.view(), g.box, sp);
    sph.prepare_force(d.view(), eos, sp);
    sph.throw_if_errors(sp.n_neighbours);
    d.download(g.s);
  }
  const std::size_t n = g.s.size();
  const char* name = set.c_str();

  // One GPU.
  double one = 0.0;
  {
    DeviceParticles d;
    d.upload(g.s);
    GpuSph sph;
    Times t;
    for (int r = 0; r <= repeat; ++r) {
      const double h = timed_ms([&] { sph.smoothing_lengths(d.view(), g.box, sp); });
      const double rho = timed_ms([&] {
        sph.density(d.view(), g.box, sp);
        sph.prepare_force(d.view(), eos, sp);
      });
      const double f = timed_ms([&] { sph.forces(d.view(), g.box, sp); });
      sph.throw_if_errors(sp.n_neighbours);
      if (r > 0) t.add(h, rho, f);
    }
    one = t.total();
    print(name, n, "one GPU (GpuSph)", median(t.h), median(t.density), median(t.forces), one, "");
  }

  // The cube of all the setup's particles (the run's: one GPU's, and the decomposition's), and
  // cubes centred on the galaxy's centre, exactly and 0.37 length units off (bench_sets.hpp;
  // for Evrard the "centred" cubes are centred on the origin, its centre too).
  const bench::DiskFrames frames = bench::disk_frames(g.s, g.others);
  const KeyCube &all = frames.run, &centred = frames.centred, &off_centre = frames.off_centre;
  struct Way {
    const char* label;
    bool sort, others;
    const KeyCube* cube;
  };
  const Way ways[] = {{"", false, false, nullptr},
                      {", own cube", true, false, nullptr},
                      {", own cube+others", true, true, nullptr},
                      {", run's cube", true, false, &all},
                      {", centred cube", true, false, &centred},
                      {", off-centre cube", true, false, &off_centre}};
  for (const int P : part_counts) {
    // The gas in P ranges of its key order: as they are; ordered again in the bounding cube
    // of the part's gas; the same with the setup's other particles beside its gas (as the order
    // stage of a rank of the run, whose particles' cube reaches 300 kpc); in given cubes.
    for (const Way& w : ways) {
      std::vector<std::unique_ptr<Part>> parts;
      for (int k = 0; k < P; ++k) {
        const std::size_t b = n * std::size_t(k) / std::size_t(P),
                          e = n * std::size_t(k + 1) / std::size_t(P);
        parts.push_back(std::make_unique<Part>(rows(g.s, b, e, w.others ? &g.others : nullptr),
                                               g.box, w.sort, w.cube));
      }
      run_parts(name, g, parts, sp, eos, repeat, one,
                std::to_string(P) + (P == 1 ? " part" : " parts") + w.label);
    }
  }
}

void run_parts(const char* name, const Gas& g, std::vector<std::unique_ptr<Part>>& parts,
               const SphParams& sp, const EosParams& eos, int repeat, double one,
               const std::string& label) {
  const std::size_t n = g.s.size();
  const int P = int(parts.size());
  int rounds_more = 0;
  for (int r = 0; r <= repeat; ++r) {
    for (auto& p : parts) p->sph->start_smoothing_lengths(0.0, /*reach=*/true);
    select_halos(parts, g.box);
    if (r > 0)
      for (auto& p : parts) p->selection.push_back(p->last_selection_ms);
    send(parts, ResidentSph::Halo::h);
    std::vector<std::vector<std::vector<uint32_t>>> first(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) first[k] = parts[k]->needed;
    std::vector<double> h(parts.size(), 0.0);
    for (int round = 1;; ++round) {
      std::size_t left = 0;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        Part& p = *parts[k];
        h[k] += timed_ms(
            [&] { left += p.sph->smoothing_lengths(p.received(), g.box, sp, false, 1.0); });
      }
      if (left == 0) break;
      if (round > 8) {
        std::fprintf(stderr, "the smoothing-length rounds did not settle\n");
        std::exit(1);
      }
      rounds_more += r > 0;
      select_halos(parts, g.box);
      send(parts, ResidentSph::Halo::h);
    }
    // The first round's ghosts serve the density and the forces (ResidentHalo).
    for (std::size_t k = 0; k < parts.size(); ++k) parts[k]->needed = first[k];
    for (auto& p : parts) p->sph->start_density();
    send(parts, ResidentSph::Halo::density);
    std::vector<double> rho(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) {
      Part& p = *parts[k];
      rho[k] = timed_ms([&] { p.sph->density(p.received(), g.box, sp, eos); });
    }
    send(parts, ResidentSph::Halo::refresh);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      Part& p = *parts[k];
      const double f = timed_ms([&] { p.sph->forces(p.received(), g.box, sp); });
      if (r > 0) p.t.add(h[k], rho[k], f);
    }
  }
  double sh = 0, srho = 0, sf = 0, most = 0;
  std::size_t ghosts = 0;
  std::string each;
  for (auto& p : parts) {
    char one_part[96];
    std::snprintf(one_part, sizeof one_part, "%s%.1f (selection %.2f)", each.empty() ? "" : " / ",
                  p->t.total(), median(p->selection));
    each += one_part;
    sh += median(p->t.h), srho += median(p->t.density), sf += median(p->t.forces);
    most = std::max(most, p->t.total());
    ghosts += p->n_ghosts;
  }
  char extra[320];
  std::snprintf(extra, sizeof extra,
                "largest part %.2f ms (%.3f of one GPU); ghosts per gas particle %.4f; rounds "
                "beyond the first: %d; parts: %s ms",
                most, most / one, double(ghosts) / double(n), rounds_more, each.c_str());
  print(name, n, label, sh, srho, sf, one, P == 1 ? "" : extra);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::string set = "disk";
  std::vector<int> part_counts;
  std::vector<long> sizes;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--repeat" && k + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++k]));
    else if (a == "--parts" && k + 1 < argc)
      part_counts.push_back(std::max(1, std::atoi(argv[++k])));
    else if (a == "--set" && k + 1 < argc)
      set = argv[++k];
    else
      sizes.push_back(std::atol(argv[k]));
  }
  if (set != "disk" && set != "evrard") {
    std::fprintf(stderr, "bench_resident_sph_gpu: --set disk or evrard\n");
    return 2;
  }
  if (part_counts.empty()) part_counts = {1, 2};
  if (sizes.empty()) sizes = {4000000};
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("SPH passes of the GPU ranks against one GPU, %s, median of %d, ms\n", prop.name,
              repeat);
  std::printf("%-6s %9s %-24s | %8s %8s %8s | %8s | %7s |\n", "set", "N gas", "way", "h", "density",
              "forces", "passes", "vs one");
  for (const long n : sizes) run_set(set, n, part_counts, repeat);
  return 0;
}
#else
int main() {
  std::printf("bench_resident_sph_gpu: this build has no CUDA backend\n");
  return 0;
}
#endif
