// The order stage on the device (defined in order_gpu.cu, CUDA builds only): the same
// (type, Morton key) order as order_particles() in order.hpp, applied to every field of
// DeviceParticles without leaving the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/box.hpp"
#include "core/device_particles.hpp"

namespace mpsph {

class DeviceOrder {
 public:
  DeviceOrder() = default;
  ~DeviceOrder();
  DeviceOrder(const DeviceOrder&) = delete;
  DeviceOrder& operator=(const DeviceOrder&) = delete;

  // Stable sort by (type, Morton key) of all particles: keys of the wrapped positions in the
  // key cube of morton_keys() (periodic: the box; open: the particles' bounding cube, found on the
  // device). `mixed_types` = false skips the type pass when all particles have one type.
  // Asynchronous; no host synchronisation.
  void sort(DeviceParticles& d, const Box& box, bool mixed_types);

  // The permutation of the last sort (device array, new[i] = old[perm[i]]).
  const uint32_t* permutation() const { return perm_; }
  std::size_t device_bytes() const;

 private:
  void reserve(std::size_t n);
  std::size_t capacity_ = 0;
  uint64_t *keys_ = nullptr, *keys_alt_ = nullptr;
  uint32_t *idx_ = nullptr, *idx_alt_ = nullptr, *perm_ = nullptr;
  uint8_t *types_ = nullptr, *types_alt_ = nullptr;
  void* frame_ = nullptr;    // key cube (device)
  void* partial_ = nullptr;  // bounding-box partials
  void* temp_ = nullptr;     // CUB scratch
  std::size_t temp_bytes_ = 0;
};

}  // namespace mpsph
