#include "gravity/gravity_params.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"

namespace mpsph {

void add_gravity_params(Schema& s) {
  const GravityParams d;
  s.add({"gravity.enabled",
         ParamType::Bool,
         param_text(d.enabled),
         0,
         0,
         false,
         false,
         {},
         "",
         "self-gravity on/off"});
  s.add({"gravity.method",
         ParamType::Choice,
         "tree",
         0,
         0,
         false,
         false,
         {"tree", "direct"},
         "",
         "Barnes-Hut octree or direct summation (reference, small N)"});
  s.add({"gravity.criterion",
         ParamType::Choice,
         "relative",
         0,
         0,
         false,
         false,
         {"geometric", "relative"},
         "",
         "node opening: geometric (l/d < theta) or GADGET relative force error (from the second "
         "force evaluation on; the first uses theta)"});
  s.add({"gravity.theta",
         ParamType::Double,
         param_text(d.theta),
         0,
         1.5,
         true,
         false,
         {},
         "",
         "opening angle of the geometric criterion"});
  s.add({"gravity.rel_tol",
         ParamType::Double,
         param_text(d.rel_tol),
         0,
         1,
         true,
         false,
         {},
         "",
         "relative criterion: G M l^2/r^4 <= rel_tol |a_old|"});
  s.add({"gravity.theta_max",
         ParamType::Double,
         param_text(d.theta_max),
         0,
         100,
         true,
         false,
         {},
         "",
         "relative criterion: a node is also opened when l >= theta_max r (GADGET-4's "
         "ErrTolThetaMax)"});
  s.add({"gravity.leaf_size",
         ParamType::Int,
         param_text(d.leaf_size),
         1,
         1024,
         false,
         false,
         {},
         "",
         "maximum particles per octree leaf"});
  s.add({"gravity.group_size",
         ParamType::Int,
         param_text(d.group_size),
         1,
         1024,
         false,
         false,
         {},
         "",
         "maximum targets sharing one interaction list in the tree walk"});
  s.add({"gravity.kernel",
         ParamType::Choice,
         "plummer",
         0,
         0,
         false,
         false,
         {"plummer", "spline"},
         "",
         "softening: Plummer (seed) or the SPH cubic spline (GADGET)"});
  s.add({"gravity.softening",
         ParamType::DoubleList,
         "[]",
         0,
         1e300,
         false,
         false,
         {},
         "code length",
         "softening length: one value for all types, or six (types 0..5); required when gravity "
         "is enabled"});
}

GravityParams gravity_params_from(const Config& c) {
  GravityParams p;
  p.enabled = c.get_bool("gravity.enabled");
  p.method =
      c.get_string("gravity.method") == "direct" ? GravityMethod::Direct : GravityMethod::Tree;
  p.criterion = c.get_string("gravity.criterion") == "relative" ? OpeningCriterion::Relative
                                                                : OpeningCriterion::Geometric;
  p.theta = c.get_double("gravity.theta");
  p.rel_tol = c.get_double("gravity.rel_tol");
  p.theta_max = c.get_double("gravity.theta_max");
  p.leaf_size = static_cast<int>(c.get_int("gravity.leaf_size"));
  p.group_size = static_cast<int>(c.get_int("gravity.group_size"));
  p.kernel = c.get_string("gravity.kernel") == "spline" ? SofteningKernel::Spline
                                                        : SofteningKernel::Plummer;
  const std::vector<double> eps = c.get_double_list("gravity.softening");
  if (eps.empty() && p.enabled) {
    throw Error(c.source() + ": gravity.softening is required when gravity.enabled is true " +
                "(one value, or six for particle types 0..5)");
  } else if (eps.size() == 1) {
    p.softening.fill(eps[0]);
  } else if (eps.size() == 6) {
    for (int t = 0; t < 6; ++t) p.softening[t] = eps[t];
  } else if (!eps.empty()) {
    throw Error(c.source() +
                ": gravity.softening: expected 1 value or 6 (one per particle type), got " +
                std::to_string(eps.size()));
  }
  return p;
}

}  // namespace mpsph
