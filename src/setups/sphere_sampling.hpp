// Sampling helpers shared by the spherical N-body generators (Plummer, Hernquist).
#pragma once

#include <cstdint>

#include "core/particle_store.hpp"
#include "core/vec3.hpp"

namespace mpsph {

// Unit vector uniform on the sphere from the counter-based draws `draw` and `draw + 1` of
// (id, seed, kStreamSetup).
Vec3d isotropic_direction(uint64_t id, uint64_t seed, uint32_t draw);

// Shifts positions and velocities so that the mass-weighted centre and mean velocity are zero
// (sums in double, in index order, so the result does not depend on the thread count).
void remove_centre_of_mass(ParticleStore& s);

}  // namespace mpsph
