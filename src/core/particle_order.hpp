// The `order` stage: particles sorted by (type, space-filling-curve key; core/sfc_key.hpp), so gas
// stays in [0, n_gas) and particles that are close in space are close in memory.
#pragma once

#include <cstdint>
#include <vector>

#include "core/box.hpp"
#include "core/morton.hpp"  // KeyCube
#include "core/particle_store.hpp"

namespace mpsph {

// The order's keys (core/sfc_key.hpp) of all particles. Periodic box: positions are wrapped into it
// and the key cube is [box.lo, box.lo + max edge). Open box: the cube spans the particles' bounding
// box.
std::vector<uint64_t> order_keys(const ParticleStore& store, const Box& box);
// The same keys in a given cube, of the particles at[0 .. count) (store indices; null: 0 .. count -
// 1): the MPI ranks' keys in the run's cube (parallel/domain_decomposition.hpp sfc_keys).
std::vector<uint64_t> order_keys_in(const ParticleStore& store, const Box& box, const KeyCube& cube,
                                    const std::size_t* at, std::size_t count);

// Stable sort by (type, key) through ParticleStore::permute; equal keys keep their order.
// Keeps the gas-first invariant of the store. Returns true if anything moved. With `subset`
// (store indices, ascending): the store keeps only those particles, ordered - the same store as
// permute(*subset), resize, then order_particles, with one permute instead of two (the MPI order
// stage after a migration, parallel/distributed_step.cpp).
bool order_particles(ParticleStore& store, const Box& box,
                     const std::vector<std::size_t>* subset = nullptr);

// Whether the store needs the order stage's sort for its layout: a particle follows one of a larger
// type (a type changed in place), or a particle is marked kRemoved. Block time steps sort only at
// the start of a synchronisation segment and when this (or a creation) asks for it.
bool layout_needs_sort(const ParticleStore& store);

// After the order sort: drops the kRemoved particles, which it put at the end (run/
// particle_changes.hpp). Returns how many were dropped.
std::size_t drop_removed(ParticleStore& s);

}  // namespace mpsph
