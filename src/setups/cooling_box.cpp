#include "setups/cooling_box.hpp"

#include <cmath>

#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"

namespace mpsph {

CoolingBoxSetup make_cooling_box(const CoolingBoxParams& p, const CoolingModel& model) {
  const UnitSystem& units = model.units();
  if (units.nbody)
    throw Error("cooling box: needs physical units (units.system: physical) to set n_H and T");
  if (p.n_side < 1 || !(p.box_size > 0) || !(p.n_H > 0) || !(p.temperature > 0) ||
      !(p.hydrogen_fraction > 0 && p.hydrogen_fraction <= 1))
    throw Error(
        "cooling box: n_side, box_size, n_H, temperature must be positive and "
        "hydrogen_fraction in (0, 1]");
  return make_gas_box(p, units, model.u_from_temperature(p.temperature));
}

void add_cooling_box_params(Schema& s) {
  add_gas_box_params(s, "setup.type=cooling_box", CoolingBoxParams{});
}

CoolingBoxParams cooling_box_params_from(const Config& c) {
  CoolingBoxParams p;
  read_gas_box_params(c, p);
  return p;
}

}  // namespace mpsph
