// spawn_particles() of particle_changes.hpp on the device (CUDA builds only): the same children,
// ids and order, made by spawn_kern.hpp's functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device_particles.hpp"

namespace mpsph {

class DeviceSpawner {
 public:
  DeviceSpawner() = default;
  ~DeviceSpawner();
  DeviceSpawner(const DeviceSpawner&) = delete;
  DeviceSpawner& operator=(const DeviceSpawner&) = delete;

  // Appends the `children` children of the spawn requests of `d` (the count comes from the step's
  // reduction, so no synchronisation is needed) with ids first_id, first_id + 1, ... in store order
  // of their parents. Asynchronous.
  void spawn(DeviceParticles& d, std::size_t children, uint64_t first_id);

 private:
  void reserve(std::size_t n);
  std::size_t capacity_ = 0;
  uint32_t* flags_ = nullptr;  // 1 where a request is pending
  uint32_t* slots_ = nullptr;  // exclusive prefix sum of flags_
  void* temp_ = nullptr;       // CUB scratch
  std::size_t temp_bytes_ = 0;
};

}  // namespace mpsph
