// Geometry of an SPH pair, shared by the density and force pair functions: separation and
// relative velocity are formed in double (periodic minimum image) and only then rounded to
// float (DESIGN.md section 4), so the float pair terms see small, accurate differences.
//
// Symmetry: PairSep(j, i) is exactly -PairSep(i, j) in dx and dv and equal in r2, because IEEE
// subtraction, nearbyint (ties to even) and the rounding to float are all odd functions. The pair
// functions build on this to be exactly (anti)symmetric.
#pragma once

#include <cstddef>

#include "core/annotation.hpp"
#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

struct PairSep {
  Vec3f dx;  // x_i - x_j (minimum image) [length]
  Vec3f dv;  // v_i - v_j [velocity]
  float r2;  // |dx|^2 [length^2]
};

MPSPH_HD PairSep pair_separation(const ParticleView& v, std::size_t i, std::size_t j,
                                 const Box& box) {
  PairSep s;
  s.dx = vec_cast<float>(min_image(v.pos[i] - v.pos[j], box));
  s.dv = vec_cast<float>(v.vel[i] - v.vel[j]);
  s.r2 = norm2(s.dx);
  return s;
}

}  // namespace mpsph
