// Positions of the disk-galaxy components, from counter-based draws of (id, seed) (the ids are
// unique over the galaxy, so the components share one seed).
#pragma once

#include <cstdint>

#include "core/vec3.hpp"
#include "setups/disk_profiles.hpp"
#include "setups/disk_vertical.hpp"

namespace mpsph {

// r from the inverted truncated mass profile, isotropic direction (draws 0..2).
Vec3d sample_hernquist_position(const HernquistSphere& s, uint64_t id, uint64_t seed);
// R from the inverted exponential mass profile, uniform azimuth, z = z0 atanh(2u - 1) drawn again
// while |z| > z_max (draws 0..1, then 2, 3, ...).
Vec3d sample_sech2_disk_position(const ExponentialDisk& d, double z0, double z_max, uint64_t id,
                                 uint64_t seed);
// R as above, z from the tabulated hydrostatic profile (draws 0..4).
Vec3d sample_gas_disk_position(const GasVerticalStructure& gas, uint64_t id, uint64_t seed);

}  // namespace mpsph
