#include "run/mpi_params.hpp"

#include <string>

#include "core/config.hpp"
#include "core/param_format.hpp"

namespace mpsph {

void add_mpi_params(Schema& s) {
  const MpiParams d;
  s.add({"mpi.max_imbalance",
         ParamType::Double,
         param_text(d.max_imbalance),
         0,
         1e300,
         true,
         false,
         {},
         "",
         "mpsph-mpi: new domain cuts when the largest rank's cost (mpi.cost_weights) exceeds the "
         "mean by more than this fraction; larger = fewer re-cuts and migrations, more imbalance "
         "(single-process runs ignore it)"});
  s.add({"mpi.gravity_cost",
         ParamType::Int,
         param_text(int(d.gravity_cost)),
         1,
         1000000,
         false,
         false,
         {},
         "",
         "mpsph-mpi: a particle's gravity in the domain decomposition's cost weights, in units of "
         "one SPH neighbour (a gas particle weighs this + N_ngb, any other this), while they are "
         "not measured (mpi.cost_weights: model, or the first two steps) (docs/mpi.md)"});
  s.add({"mpi.cost_weights",
         ParamType::Choice,
         d.measured_costs ? "measured" : "model",
         0,
         0,
         false,
         false,
         {"measured", "model"},
         "",
         "mpsph-mpi: the domain decomposition's cost of a particle's gravity and of one SPH "
         "neighbour - measured: each rank's from its own work time (walk, SPH passes) in the last "
         "step or segment, from step 3 on, a particle's gravity by its own share of its group's "
         "walk (walk_cost: GPU clock cycles, CPU interactions), per particle step (under block "
         "steps a particle counts its 2^rung steps), so that re-cuts balance the ranks' times (a "
         "slower region or GPU gets fewer particles); model: mpi.gravity_cost and 1 per particle "
         "throughout, as before step 3 (docs/mpi.md)"});
  s.add({"mpi.gpu_ranks",
         ParamType::Choice,
         gpu_ranks_name(d.gpu_ranks),
         0,
         0,
         false,
         false,
         {"auto", "device", "host"},
         "",
         "mpsph-mpi on GPUs: where a rank's particles live - device: on its GPU for the whole run "
         "(global time steps, no physics module); host: on the host, with the SPH passes and the "
         "gravity tree on the GPU (every feature); auto: device when the run allows it "
         "(docs/mpi.md)"});
  s.add({"mpi.gpu_transfers",
         ParamType::Choice,
         gpu_transfers_name(d.gpu_transfers),
         0,
         0,
         false,
         false,
         {"auto", "peer", "host"},
         "",
         "mpsph-mpi, device-resident GPU ranks: how the SPH halos travel - peer: GPU to GPU "
         "through CUDA IPC (every rank on one node; an error where that cannot work); host: "
         "through host memory and MPI; auto: peer where it works, else host (docs/mpi.md)"});
}

const char* gpu_transfers_name(GpuTransfers t) {
  switch (t) {
    case GpuTransfers::Peer:
      return "peer";
    case GpuTransfers::Host:
      return "host";
    default:
      return "auto";
  }
}

const char* gpu_ranks_name(GpuRanksMode m) {
  switch (m) {
    case GpuRanksMode::Device:
      return "device";
    case GpuRanksMode::Host:
      return "host";
    default:
      return "auto";
  }
}

MpiParams mpi_params_from(const Config& c) {
  MpiParams p;
  p.max_imbalance = c.get_double("mpi.max_imbalance");
  p.gravity_cost = double(c.get_int("mpi.gravity_cost"));
  p.measured_costs = c.get_string("mpi.cost_weights") == "measured";
  const std::string g = c.get_string("mpi.gpu_ranks");
  p.gpu_ranks = g == "device" ? GpuRanksMode::Device
                : g == "host" ? GpuRanksMode::Host
                              : GpuRanksMode::Auto;
  const std::string t = c.get_string("mpi.gpu_transfers");
  p.gpu_transfers = t == "peer"   ? GpuTransfers::Peer
                    : t == "host" ? GpuTransfers::Host
                                  : GpuTransfers::Auto;
  return p;
}

}  // namespace mpsph
