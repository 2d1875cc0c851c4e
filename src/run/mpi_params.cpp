#include "run/mpi_params.hpp"

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
         "mpsph-mpi: new domain cuts when the largest rank's cost (1 + N_ngb per gas particle, 1 "
         "per other) exceeds the mean by more than this fraction; larger = fewer re-cuts and "
         "migrations, more imbalance (single-process runs ignore it)"});
}

MpiParams mpi_params_from(const Config& c) {
  MpiParams p;
  p.max_imbalance = c.get_double("mpi.max_imbalance");
  return p;
}

}  // namespace mpsph
