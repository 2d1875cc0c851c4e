// Particles that change type, are created or are removed during a run (a gas particle becomes a
// cloud, a cloud spawns a star, a sink swallows gas), on both backends.
//
// A physics stage never resizes the store. It
//   - changes `type[i]` in place (gas -> cloud),
//   - marks a particle removed with type[i] = kRemoved after giving its mass, momentum and energy
//   to
//     others (the particle must then have mass 0 for the conserved sums to stay right until it is
//     dropped),
//   - asks for a new particle with spawn_mass[i] > 0 and spawn_type[i]: the child is a copy of the
//     parent (position, velocity, metals, ...) of type spawn_type and mass spawn_mass, which the
//     parent gives up.
// The next order stage applies the requests: spawn_particles() appends the children, in store
// order of their parents, with ids next_id, next_id + 1, ... (so ids stay unique for the whole run
// and both backends give the same ids in any thread order); the (type, key) sort moves the
// removed particles (kRemoved sorts after every type) to the end, and drop_removed()
// (core/particle_order.hpp) cuts them off. Mass and momentum are conserved to round-off: the
// parent keeps m - spawn_mass.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/particle_store.hpp"

namespace mpsph {

// Appends the children of every spawn request and clears the requests. Returns how many were made;
// next_id is advanced by that number.
std::size_t spawn_particles(ParticleStore& s, uint64_t& next_id);

// The smallest id that no particle of `s` has (max id + 1; 1 for an empty store).
uint64_t first_free_id(const ParticleStore& s);

}  // namespace mpsph
