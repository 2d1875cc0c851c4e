#include "setups/molecular_cloud_inputs.hpp"

#include "core/config.hpp"
#include "core/error.hpp"

namespace mpsph {

MolecularCloudInputs molecular_cloud_inputs(const Config& c, const std::string& setup_type) {
  MolecularCloudInputs in{UnitSystem::from_config(c), eos_params_from(c), 0.0};
  if (in.units.nbody)
    throw Error(c.origin("setup.type") + ": setup.type = " + setup_type +
                " needs physical units (units.system: physical, e.g. length: pc, mass: Msun, "
                "velocity: km/s)");
  if (in.eos.kind == EosKind::Adiabatic)
    throw Error(c.origin("setup.type") + ": setup.type = " + setup_type +
                " needs a non-adiabatic eos.type (isothermal, barotropic or piecewise): the "
                "gas temperature is the EOS's");
  in.u0 = in.eos.sound_speed * in.eos.sound_speed / (in.eos.gamma - 1.0);
  return in;
}

}  // namespace mpsph
