// The order stage on the device (defined in order_gpu.cu, CUDA builds only): the same
// (type, key) order as order_particles() in order.hpp, applied to every field of
// DeviceParticles without leaving the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/box.hpp"
#include "core/device_particles.hpp"
#include "core/device_scratch.hpp"
#include "core/morton.hpp"

namespace mpsph {

class DeviceOrder {
 public:
  DeviceOrder() = default;
  ~DeviceOrder();
  DeviceOrder(const DeviceOrder&) = delete;
  DeviceOrder& operator=(const DeviceOrder&) = delete;

  // Stable sort by (type, key; core/sfc_key.hpp) of all particles: keys of the wrapped positions in
  // the key cube of order_keys() (periodic: the box; open: the particles' bounding cube, found on
  // the device). `mixed_types` = false skips the type pass when all particles have one type.
  // Asynchronous; no host synchronisation. The keys, the sort buffers and the reorder buffer
  // of DeviceParticles::permute live in `scratch` (lent by the caller, who uses it for other
  // stages between sorts; null: a buffer of this object's own).
  // `cube` (open boxes; null: the particles' bounding cube): the key cube to use instead - the
  // device-resident MPI ranks order their particles in the run's cube, so that each rank holds
  // its particles in one GPU's order (docs/mpi.md, "The order of a rank's particles").
  void sort(DeviceParticles& d, const Box& box, bool mixed_types, DeviceScratch* scratch = nullptr,
            const KeyCube* cube = nullptr);

  // The permutation of the last sort (device array, new[i] = old[perm[i]]), valid until the
  // scratch is lent again.
  const uint32_t* permutation() const { return perm_; }

 private:
  uint32_t* perm_ = nullptr;
  void* frame_ = nullptr;    // key cube (device)
  void* partial_ = nullptr;  // bounding-box partials
  DeviceScratch own_;        // when the caller lends none
};

}  // namespace mpsph
