// Device-resident particle storage, generated from the same field table as the host store
// (particle_fields.hpp): one device array per field, a ParticleView of device pointers for the
// kernels, and per-field transfers so that a stage copies only what it needs.
//
// Fields of a FieldGroup the holder does not ask for (set_groups) are not allocated: their view
// pointers are null, reorders skip them, and a download fills the host array with the value the
// last upload found in it (the caller leaves a group off only when that value is the same for
// every particle and no stage changes it; GpuBackend, run/gpu_backend_gpu.cu).
//
// Declared for every build; defined only when CUDA is compiled in (device_particles_gpu.cu), so
// code that uses it is itself CUDA-only (*_gpu.cu or guarded by MPSPH_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "core/particle_store.hpp"

namespace mpsph {

// One enumerator per field of the table, in table order.
enum class Field {
#define MPSPH_FIELD_ENUM(name, ...) name,
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_ENUM)
#undef MPSPH_FIELD_ENUM
};
constexpr int kNumFields = 0
#define MPSPH_FIELD_COUNT(name, ...) +1
    MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_COUNT)
#undef MPSPH_FIELD_COUNT
    ;

class DeviceParticles {
 public:
  DeviceParticles() = default;
  // Allocates every field for n particles. Out of device memory throws mpsph::Error stating the
  // bytes asked for, the free memory, and how many particles would fit.
  explicit DeviceParticles(std::size_t n);
  ~DeviceParticles();
  DeviceParticles(const DeviceParticles&) = delete;
  DeviceParticles& operator=(const DeviceParticles&) = delete;
  DeviceParticles(DeviceParticles&& o) noexcept;
  DeviceParticles& operator=(DeviceParticles&& o) noexcept;

  // Grows (never shrinks) the allocation; contents are not kept.
  void reserve(std::size_t n);
  // Sets the particle count to n, keeping the first min(n, size()) particles (the allocation grows
  // by at least a quarter when it must, so that particles created a few at a time do not copy the
  // store every step). n_gas is left for set_counts().
  void resize(std::size_t n);
  std::size_t size() const { return n_; }
  void set_counts(std::size_t n, std::size_t n_gas) {
    n_ = view_.n = n;
    n_gas_ = view_.n_gas = n_gas;
  }

  // The optional field groups (FieldGroup bits) to hold from now on; kAllFieldGroups (every
  // field) until set. A change frees the arrays (contents are not kept; upload next).
  void set_groups(unsigned groups);
  unsigned groups() const { return groups_; }
  // Only the listed fields (of the held groups) from now on; every field when the list is empty
  // (the default). A store for one stage's kernels (the device-resident ranks' SPH work store)
  // holds what they read and write. A change frees the arrays, as set_groups.
  void set_fields(std::initializer_list<Field> fields);
  bool holds(Field f) const;

  // Host <-> device copies of the listed fields (all fields when the list is empty). upload()
  // also sets the particle and gas counts from the store. Fields not held: upload() records
  // their first particle's value, download() fills the host array with it.
  void upload(const ParticleStore& s, std::initializer_list<Field> fields = {});
  void download(ParticleStore& s, std::initializer_list<Field> fields = {}) const;

  // Reorders the listed fields (all fields when the list is empty) on the device:
  // new[i] = old[perm[i]] for i < size(), perm a device array. Asynchronous on the default
  // stream. `scratch`: device memory of at least size() x permute_scratch_bytes() bytes that
  // is not in use (the order stage lends its sort buffers, core/device_scratch.hpp); without
  // it a buffer of the largest field's size is kept for it.
  void permute(const uint32_t* device_perm, std::initializer_list<Field> fields = {},
               void* scratch = nullptr);
  static std::size_t permute_scratch_bytes();  // per particle

  // --- Parts of the store (the device-resident MPI ranks, run/gpu_ranks.hpp) ---
  // Host <-> device copies of the listed fields (all when the list is empty) of `count`
  // particles: host entries [host_first, host_first + count) of `s` (which must hold them) and
  // device entries [device_first, device_first + count). Fields not held are skipped.
  void upload_range(const ParticleStore& s, std::size_t host_first, std::size_t count,
                    std::size_t device_first, std::initializer_list<Field> fields = {});
  void download_range(ParticleStore& s, std::size_t device_first, std::size_t count,
                      std::size_t host_first, std::initializer_list<Field> fields = {}) const;
  // Device -> device: the listed fields of `from`'s [from_first, from_first + count) into this
  // store's [first, first + count) (asynchronous on the default stream; fields that either store
  // does not hold are skipped).
  void copy_range(const DeviceParticles& from, std::size_t from_first, std::size_t count,
                  std::size_t first, std::initializer_list<Field> fields = {});
  // Particles as records of the listed held fields (every held field when the list is empty),
  // one after the other in table order (record_bytes(fields) each): what moves a particle to
  // another rank, or a ghost's fields to a halo. pack() writes the records of device entries
  // index[0..] to `out` (host), unpack() writes `count` records from host memory into device
  // entries [first, first + count) (within size()); both sides name the same fields.
  std::size_t record_bytes(std::initializer_list<Field> fields = {}) const;
  // Of a held, listed field within a record.
  std::size_t record_offset(Field f, std::initializer_list<Field> fields = {}) const;
  void pack(const std::vector<uint32_t>& index, std::vector<unsigned char>& out,
            std::initializer_list<Field> fields = {}) const;
  void unpack(const unsigned char* records, std::size_t count, std::size_t first,
              std::initializer_list<Field> fields = {});
  // The same with the indices and the records in device memory (asynchronous on the default
  // stream: halos exchanged between the GPUs, parallel/device_all_to_all.hpp).
  void pack_on_device(const uint32_t* index, std::size_t n, unsigned char* out,
                      std::initializer_list<Field> fields = {}) const;
  void unpack_on_device(const unsigned char* records, std::size_t count, std::size_t first,
                        std::initializer_list<Field> fields = {});

  // Device pointers for kernels (n and n_gas filled in).
  ParticleView view() const { return view_; }

  // Bytes of device memory per particle for all fields of the table, and for the held ones.
  static std::size_t bytes_per_particle();
  std::size_t held_bytes_per_particle() const;
  // Device bytes held: the fields' arrays at their capacity and the reorder buffer.
  std::size_t device_bytes() const;

 private:
  void release();
  ParticleView view_{};
  std::size_t n_ = 0, n_gas_ = 0, capacity_ = 0;
  unsigned groups_ = kAllFieldGroups;
  uint64_t fields_ = ~uint64_t(0);           // set_fields: bit k for Field k
  unsigned char fill_[kNumFields][32] = {};  // fields not held: their value (upload)
  void* scratch_ = nullptr;                  // permute() without a lent buffer: one field's worth
  std::size_t scratch_bytes_ = 0;
};

}  // namespace mpsph
