// The mpi section (src/run/mpi_params.cpp): strict like every section, read by single-process
// runs too so that one config serves mpsph and mpsph-mpi.
#include "run/mpi_params.hpp"

#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/error_message.hpp"
#include "run/program_schema.hpp"

using namespace mpsph;

namespace {

const Schema& mpi_schema() {
  static const Schema s = [] {
    Schema x;
    add_mpi_params(x);
    return x;
  }();
  return s;
}

MpiParams mpi_of(const std::string& yaml) {
  return mpi_params_from(Config::from_string(yaml, "mpi.yml", mpi_schema()));
}

}  // namespace

TEST_CASE("mpi.max_imbalance: default 0.02, positive, strict", "[run][config]") {
  CHECK(mpi_of("{}").max_imbalance == 0.02);
  CHECK(mpi_of("mpi: {max_imbalance: 0.2}").max_imbalance == 0.2);
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {max_imbalance: 0}"); }),
                       "mpi.max_imbalance"));
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {max_imbalance: -1}"); }),
                       "mpi.max_imbalance"));
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {max_imbalance: lots}"); }),
                       "mpi.max_imbalance"));
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {max_imbalanse: 0.1}"); }),
                       "max_imbalanse"));
  // The program's schema has it, so a single-process run accepts the key.
  bool found = false;
  for (const ParamSpec& p : program_schema().specs())
    found = found || p.path == "mpi.max_imbalance";
  CHECK(found);
}

TEST_CASE("mpi.gpu_ranks: default auto, one of auto, device, host", "[run][config]") {
  CHECK(mpi_of("{}").gpu_ranks == GpuRanksMode::Auto);
  CHECK(mpi_of("mpi: {gpu_ranks: device}").gpu_ranks == GpuRanksMode::Device);
  CHECK(mpi_of("mpi: {gpu_ranks: host}").gpu_ranks == GpuRanksMode::Host);
  CHECK(mpi_of("mpi: {gpu_ranks: auto}").gpu_ranks == GpuRanksMode::Auto);
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {gpu_ranks: gpu}"); }),
                       "mpi.gpu_ranks"));
  CHECK(std::string(gpu_ranks_name(GpuRanksMode::Host)) == "host");
  CHECK(std::string(gpu_ranks_name(GpuRanksMode::Device)) == "device");
}

TEST_CASE("mpi.gpu_transfers: default auto, one of auto, peer, host", "[run][config]") {
  CHECK(mpi_of("{}").gpu_transfers == GpuTransfers::Auto);
  CHECK(mpi_of("mpi: {gpu_transfers: peer}").gpu_transfers == GpuTransfers::Peer);
  CHECK(mpi_of("mpi: {gpu_transfers: host}").gpu_transfers == GpuTransfers::Host);
  CHECK(mpi_of("mpi: {gpu_transfers: auto}").gpu_transfers == GpuTransfers::Auto);
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {gpu_transfers: nccl}"); }),
                       "mpi.gpu_transfers"));
  CHECK(std::string(gpu_transfers_name(GpuTransfers::Peer)) == "peer");
  CHECK(std::string(gpu_transfers_name(GpuTransfers::Host)) == "host");
}

TEST_CASE("mpi.gravity_cost: default 1, a whole number >= 1", "[run][config]") {
  CHECK(mpi_of("{}").gravity_cost == 1.0);
  CHECK(mpi_of("mpi: {gravity_cost: 8}").gravity_cost == 8.0);
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {gravity_cost: 0}"); }),
                       "mpi.gravity_cost"));
  CHECK(test::contains(test::error_message([] { mpi_of("mpi: {gravity_cost: 2.5}"); }),
                       "mpi.gravity_cost"));
}
