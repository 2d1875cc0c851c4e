#include "setups/sedov.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/param_format.hpp"
#include "setups/glass.hpp"
#include "sph/kernel_kern.hpp"

namespace mpsph {

SedovSetup make_sedov(const SedovParams& p) {
  if (p.glass_n_side < 1 || p.n_side < p.glass_n_side || p.n_side % p.glass_n_side != 0)
    throw Error("sedov: setup.n_side = " + std::to_string(p.n_side) +
                " must be a multiple of setup.glass_n_side = " + std::to_string(p.glass_n_side));
  const long n = long(p.n_side) * p.n_side * p.n_side;
  if (p.n_inject < 1 || p.n_inject >= n)
    throw Error("sedov: setup.n_inject = " + std::to_string(p.n_inject) + " must lie in [1, " +
                std::to_string(n - 1) + "]");
  GlassParams gp;
  gp.n = p.glass_n_side * p.glass_n_side * p.glass_n_side;
  gp.seed = p.seed;
  const Glass g = make_glass(gp);
  const int tiles = p.n_side / p.glass_n_side;
  const double tile = p.box_size / tiles;

  SedovSetup out;
  out.box.periodic = true;
  out.box.lo = {0, 0, 0};
  out.box.size = {p.box_size, p.box_size, p.box_size};
  out.centre = {0.5 * p.box_size, 0.5 * p.box_size, 0.5 * p.box_size};
  ParticleStore& s = out.particles;
  s.resize(std::size_t(n));
  const double m = p.rho0 * std::pow(p.box_size, 3) / double(n);
  std::size_t i = 0;
  for (int a = 0; a < tiles; ++a)
    for (int b = 0; b < tiles; ++b)
      for (int c = 0; c < tiles; ++c)
        for (const Vec3d& q : g.pos) {
          s.pos[i] = {(a + q.x) * tile, (b + q.y) * tile, (c + q.z) * tile};
          s.vel[i] = {0, 0, 0};
          s.mass[i] = m;
          s.id[i] = i + 1;
          s.type[i] = kGas;
          s.u[i] = p.u_background;
          s.h[i] = 0.0f;
          ++i;
        }

  // The n_inject + 1 particles nearest the centre (the box centre: every direct separation from
  // it is already the nearest periodic image).
  std::vector<double> r(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) r[k] = norm(s.pos[k] - out.centre);
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const auto nth = order.begin() + p.n_inject;
  std::nth_element(order.begin(), nth, order.end(),
                   [&r](std::size_t x, std::size_t y) { return r[x] < r[y]; });
  const double h_e = 0.5 * r[*nth];  // the (n_inject+1)-th nearest sits at 2 h_e
  double wsum = 0;
  for (auto k = order.begin(); k != nth; ++k) wsum += kernel_w(r[*k], h_e);
  if (!(wsum > 0))
    throw Error(
        "sedov: the nearest particles to the centre are all equally far; change setup.seed");
  for (auto k = order.begin(); k != nth; ++k)
    s.u[*k] += p.energy * kernel_w(r[*k], h_e) / (m * wsum);
  return out;
}

void add_sedov_params(Schema& s) {
  const SedovParams d;
  const std::string sedov = "setup.type=sedov";
  s.add({"setup.n_side",
         ParamType::Int,
         param_text(d.n_side),
         2,
         4096,
         false,
         false,
         {},
         "",
         "particles per box side (N = n_side^3); a multiple of glass_n_side",
         sedov});
  s.add({"setup.glass_n_side",
         ParamType::Int,
         param_text(d.glass_n_side),
         6,
         64,
         false,
         false,
         {},
         "",
         "particles per side of the periodic glass cube tiled over the box",
         sedov});
  s.add({"setup.seed",
         ParamType::Int,
         "1",
         0,
         1e18,
         false,
         false,
         {},
         "",
         "random seed of the glass (same seed, same particles)",
         sedov});
  s.add({"setup.box_size",
         ParamType::Double,
         param_text(d.box_size),
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "edge L of the periodic box; the explosion is at its centre",
         sedov});
  s.add({"setup.density",
         ParamType::Double,
         param_text(d.rho0),
         0,
         1e300,
         true,
         false,
         {},
         "code density",
         "ambient density rho0",
         sedov});
  s.add({"setup.energy",
         ParamType::Double,
         param_text(d.energy),
         0,
         1e300,
         true,
         false,
         {},
         "code energy",
         "explosion energy E",
         sedov});
  s.add({"setup.u_background",
         ParamType::Double,
         param_text(d.u_background),
         0,
         1e300,
         false,
         false,
         {},
         "code velocity^2",
         "ambient specific internal energy (keep P0 far below the post-shock pressure)",
         sedov});
  s.add({"setup.n_inject",
         ParamType::Int,
         param_text(d.n_inject),
         1,
         1e6,
         false,
         false,
         {},
         "",
         "particles nearest the centre that receive E, with kernel weights",
         sedov});
}

SedovParams sedov_params_from(const Config& c) {
  SedovParams p;
  p.n_side = int(c.get_int("setup.n_side"));
  p.glass_n_side = int(c.get_int("setup.glass_n_side"));
  p.seed = static_cast<uint64_t>(c.get_int("setup.seed"));
  p.box_size = c.get_double("setup.box_size");
  p.rho0 = c.get_double("setup.density");
  p.energy = c.get_double("setup.energy");
  p.u_background = c.get_double("setup.u_background");
  p.n_inject = int(c.get_int("setup.n_inject"));
  return p;
}

}  // namespace mpsph
