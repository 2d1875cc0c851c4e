#include "setups/sticky_clouds.hpp"

#include <cmath>

#include "cooling/cooling_kern.hpp"
#include "core/config.hpp"
#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "core/rng.hpp"

namespace mpsph {

namespace {

// Draws of stream kStreamSetup per cloud: 0-2 position, 3-8 velocity, 9 metallicity.
constexpr uint32_t kDrawPosition = 0, kDrawVelocity = 3, kDrawMetals = 9;

// Standard normal deviate by Box-Muller from draws `first` and first + 1.
double normal_deviate(uint64_t seed, uint64_t id, uint32_t first) {
  const double u1 = 1.0 - random_uniform(id, seed, kStreamSetup, first);  // (0, 1]
  const double u2 = random_uniform(id, seed, kStreamSetup, first + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * cgs::kPi * u2);
}

}  // namespace

StickyCloudsSetup make_sticky_clouds(const StickyCloudsSetupParams& p) {
  if (p.n_clouds < 1 || !(p.box_size > 0) || !(p.cloud_mass > 0) || !(p.sigma_v >= 0))
    throw Error("sticky clouds: n_clouds, box_size and cloud_mass must be positive, sigma_v >= 0");
  StickyCloudsSetup out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {p.box_size, p.box_size, p.box_size};
  ParticleStore& s = out.particles;
  const std::size_t n = std::size_t(p.n_clouds);
  s.resize(n);
  const double x_h = 0.7;
  Vec3d mean{0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t id = i + 1;
    s.id[i] = id;
    s.type[i] = kCloud;
    s.mass[i] = p.cloud_mass;
    s.pos[i] = {p.box_size * random_uniform(id, p.seed, kStreamSetup, kDrawPosition),
                p.box_size * random_uniform(id, p.seed, kStreamSetup, kDrawPosition + 1),
                p.box_size * random_uniform(id, p.seed, kStreamSetup, kDrawPosition + 2)};
    s.vel[i] = {p.sigma_v * normal_deviate(p.seed, id, kDrawVelocity),
                p.sigma_v * normal_deviate(p.seed, id, kDrawVelocity + 2),
                p.sigma_v * normal_deviate(p.seed, id, kDrawVelocity + 4)};
    mean += s.vel[i];
    const double dex =
        p.metal_spread * (2.0 * random_uniform(id, p.seed, kStreamSetup, kDrawMetals) - 1.0);
    s.x_h[i] = x_h;
    const MetalFractions metals = scaled_solar_metals(x_h, dex);
    s.z_fe[i] = metals.z_fe;
    s.z_o[i] = metals.z_o;
  }
  mean *= 1.0 / double(n);  // equal masses: the mass-weighted mean
  for (std::size_t i = 0; i < n; ++i) s.vel[i] -= mean;
  return out;
}

void add_sticky_clouds_setup_params(Schema& s) {
  const StickyCloudsSetupParams d;
  const std::string on = "setup.type=sticky_clouds";
  s.add({"setup.n_clouds",
         ParamType::Int,
         param_text(d.n_clouds),
         1,
         1e9,
         false,
         false,
         {},
         "",
         "number of clouds",
         on});
  s.add({"setup.box_size",
         ParamType::Double,
         param_text(d.box_size),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "edge of the periodic box",
         on});
  s.add({"setup.cloud_mass",
         ParamType::Double,
         param_text(d.cloud_mass),
         0,
         1e300,
         true,
         false,
         {},
         "code mass",
         "initial mass of every cloud",
         on});
  s.add({"setup.sigma_v",
         ParamType::Double,
         param_text(d.sigma_v),
         0,
         1e300,
         false,
         false,
         {},
         "code velocity",
         "1D velocity dispersion of the clouds (Gaussian, mean removed)",
         on});
  s.add({"setup.metal_spread",
         ParamType::Double,
         param_text(d.metal_spread),
         0,
         5,
         false,
         false,
         {},
         "dex",
         "cloud metallicities: scaled solar z_Fe, z_O times 10^x, x uniform in [-spread, spread]",
         on});
  s.add({"setup.seed",
         ParamType::Int,
         param_text(long(d.seed)),
         0,
         9.0e15,
         false,
         false,
         {},
         "",
         "seed of the counter-based random numbers",
         on});
}

StickyCloudsSetupParams sticky_clouds_setup_params_from(const Config& c) {
  StickyCloudsSetupParams p;
  p.n_clouds = int(c.get_int("setup.n_clouds"));
  p.box_size = c.get_double("setup.box_size");
  p.cloud_mass = c.get_double("setup.cloud_mass");
  p.sigma_v = c.get_double("setup.sigma_v");
  p.metal_spread = c.get_double("setup.metal_spread");
  p.seed = uint64_t(c.get_int("setup.seed"));
  return p;
}

}  // namespace mpsph
