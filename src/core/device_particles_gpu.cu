#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "core/device_particles.hpp"
#include "core/error.hpp"

namespace mpsph {

namespace {

bool listed(std::initializer_list<Field> fields, Field f) {
  if (fields.size() == 0) return true;
  for (Field g : fields)
    if (g == f) return true;
  return false;
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(err));
}

template <class T>
__global__ void gather_kernel(T* __restrict__ out, const T* __restrict__ in,
                              const uint32_t* __restrict__ perm, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[perm[i]];
}

// The FieldGroup of each field, in table order.
constexpr unsigned kFieldGroup[] = {
#define MPSPH_FIELD_GROUP(name, T, h5, dim, pers, types, group, desc) unsigned(group),
    MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_GROUP)
#undef MPSPH_FIELD_GROUP
};

#define MPSPH_FIELD_FITS(name, T, ...) \
  static_assert(sizeof(T) <= 32, "DeviceParticles::fill_ holds at most 32 bytes per field");
MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_FITS)
#undef MPSPH_FIELD_FITS

}  // namespace

static_assert(kNumFields <= 64, "DeviceParticles::set_fields keeps one bit per field");

bool DeviceParticles::holds(Field f) const {
  const unsigned g = kFieldGroup[int(f)];
  return ((fields_ >> int(f)) & 1u) && (g == kCoreFields || (groups_ & g) == g);
}

void DeviceParticles::set_fields(std::initializer_list<Field> fields) {
  uint64_t mask = fields.size() == 0 ? ~uint64_t(0) : 0;
  for (const Field f : fields) mask |= uint64_t(1) << int(f);
  if (mask == fields_) return;
  release();
  fields_ = mask;
  n_ = n_gas_ = 0;
  view_ = ParticleView{};
}

void DeviceParticles::set_groups(unsigned groups) {
  groups &= kAllFieldGroups;
  if (groups == groups_) return;
  release();
  groups_ = groups;
  n_ = n_gas_ = 0;
  view_ = ParticleView{};
}

std::size_t DeviceParticles::bytes_per_particle() {
  std::size_t b = 0;
#define MPSPH_FIELD_BYTES(name, T, ...) b += sizeof(T);
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_BYTES)
#undef MPSPH_FIELD_BYTES
  return b;
}

std::size_t DeviceParticles::held_bytes_per_particle() const {
  std::size_t b = 0;
#define MPSPH_FIELD_HELD_BYTES(name, T, ...) \
  if (holds(Field::name)) b += sizeof(T);
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_HELD_BYTES)
#undef MPSPH_FIELD_HELD_BYTES
  return b;
}

std::size_t DeviceParticles::permute_scratch_bytes() {
  std::size_t largest = 0;
#define MPSPH_FIELD_LARGEST(name, T, ...) largest = sizeof(T) > largest ? sizeof(T) : largest;
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_LARGEST)
#undef MPSPH_FIELD_LARGEST
  return largest;
}

std::size_t DeviceParticles::device_bytes() const {
  return capacity_ * held_bytes_per_particle() + scratch_bytes_;
}

DeviceParticles::DeviceParticles(std::size_t n) {
  reserve(n);
}

DeviceParticles::~DeviceParticles() {
  release();
  cudaFree(scratch_);
}

DeviceParticles::DeviceParticles(DeviceParticles&& o) noexcept
    : view_(o.view_),
      n_(o.n_),
      n_gas_(o.n_gas_),
      capacity_(o.capacity_),
      groups_(o.groups_),
      fields_(o.fields_),
      scratch_(o.scratch_),
      scratch_bytes_(o.scratch_bytes_) {
  std::memcpy(fill_, o.fill_, sizeof fill_);
  o.view_ = ParticleView{};
  o.n_ = o.n_gas_ = o.capacity_ = 0;
  o.scratch_ = nullptr;
  o.scratch_bytes_ = 0;
}

DeviceParticles& DeviceParticles::operator=(DeviceParticles&& o) noexcept {
  if (this != &o) {
    release();
    cudaFree(scratch_);
    view_ = o.view_;
    n_ = o.n_, n_gas_ = o.n_gas_, capacity_ = o.capacity_;
    groups_ = o.groups_;
    fields_ = o.fields_;
    std::memcpy(fill_, o.fill_, sizeof fill_);
    scratch_ = o.scratch_, scratch_bytes_ = o.scratch_bytes_;
    o.view_ = ParticleView{};
    o.n_ = o.n_gas_ = o.capacity_ = 0;
    o.scratch_ = nullptr;
    o.scratch_bytes_ = 0;
  }
  return *this;
}

void DeviceParticles::release() {
#define MPSPH_FIELD_FREE(name, ...) \
  cudaFree(view_.name);             \
  view_.name = nullptr;
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_FREE)
#undef MPSPH_FIELD_FREE
  capacity_ = 0;
}

void DeviceParticles::reserve(std::size_t n) {
  if (n <= capacity_) return;
  release();
  const std::size_t per = held_bytes_per_particle();
  const std::size_t want = n * per;
  std::size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  auto fail = [&](const char* field) {
    release();
    cudaGetLastError();  // clear the sticky allocation error
    throw Error("out of GPU memory allocating particle field '" + std::string(field) +
                "': " + std::to_string(n) + " particles need " + std::to_string(want) + " bytes (" +
                std::to_string(per) + " per particle), " + std::to_string(free_b) +
                " bytes were free: at most " + std::to_string(free_b / per) + " particles fit");
  };
#define MPSPH_FIELD_ALLOC(name, T, ...)                                                  \
  if (holds(Field::name) &&                                                              \
      cudaMalloc(reinterpret_cast<void**>(&view_.name), n * sizeof(T)) != cudaSuccess) { \
    view_.name = nullptr;                                                                \
    fail(#name);                                                                         \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_ALLOC)
#undef MPSPH_FIELD_ALLOC
  capacity_ = n;
}

void DeviceParticles::resize(std::size_t n) {
  if (n > capacity_) {
    const std::size_t keep = n_;
    const std::size_t cap = std::max(n, capacity_ + capacity_ / 4);
    ParticleView old = view_;
    view_ = ParticleView{};
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    // On failure every field keeps a valid array of at least the old capacity: the fields not
    // yet grown get their old arrays back.
    auto fail = [&](const char* field) {
      cudaGetLastError();
#define MPSPH_FIELD_RESTORE(name, ...) \
  if (!view_.name) view_.name = old.name;
      MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_RESTORE)
#undef MPSPH_FIELD_RESTORE
      view_.n = n_;
      view_.n_gas = n_gas_;
      throw Error("out of GPU memory growing particle field '" + std::string(field) + "' to " +
                  std::to_string(cap) + " particles (" + std::to_string(held_bytes_per_particle()) +
                  " bytes each; " + std::to_string(free_b) + " bytes were free)");
    };
    // Field by field, so that at most one field is held twice.
#define MPSPH_FIELD_GROW(name, T, ...)                                                       \
  if (holds(Field::name)) {                                                                  \
    if (cudaMalloc(reinterpret_cast<void**>(&view_.name), cap * sizeof(T)) != cudaSuccess) { \
      view_.name = old.name;                                                                 \
      fail(#name);                                                                           \
    }                                                                                        \
    if (keep > 0)                                                                            \
      check(cudaMemcpy(view_.name, old.name, keep * sizeof(T), cudaMemcpyDeviceToDevice),    \
            "growing particle field '" #name "'");                                           \
    cudaFree(old.name);                                                                      \
    old.name = nullptr;                                                                      \
  }
    MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_GROW)
#undef MPSPH_FIELD_GROW
    capacity_ = cap;
  }
  n_ = view_.n = n;
}

void DeviceParticles::upload(const ParticleStore& s, std::initializer_list<Field> fields) {
  reserve(s.size());
  n_ = s.size();
  n_gas_ = s.n_gas();
#define MPSPH_FIELD_UP(name, T, ...)                                                         \
  if (listed(fields, Field::name)) {                                                         \
    if (holds(Field::name)) {                                                                \
      if (n_ > 0)                                                                            \
        check(cudaMemcpy(view_.name, s.name.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), \
              "upload of particle field '" #name "'");                                       \
    } else {                                                                                 \
      std::memset(fill_[int(Field::name)], 0, sizeof fill_[0]);                              \
      if (n_ > 0) std::memcpy(fill_[int(Field::name)], s.name.data(), sizeof(T));            \
    }                                                                                        \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_UP)
#undef MPSPH_FIELD_UP
  view_.n = n_;
  view_.n_gas = n_gas_;
}

void DeviceParticles::download(ParticleStore& s, std::initializer_list<Field> fields) const {
  if (s.size() != n_) s.resize(n_);
#define MPSPH_FIELD_DOWN(name, T, ...)                                                       \
  if (listed(fields, Field::name)) {                                                         \
    if (holds(Field::name)) {                                                                \
      if (n_ > 0)                                                                            \
        check(cudaMemcpy(s.name.data(), view_.name, n_ * sizeof(T), cudaMemcpyDeviceToHost), \
              "download of particle field '" #name "'");                                     \
    } else {                                                                                 \
      T value;                                                                               \
      std::memcpy(&value, fill_[int(Field::name)], sizeof(T));                               \
      std::fill(s.name.begin(), s.name.end(), value);                                        \
    }                                                                                        \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_DOWN)
#undef MPSPH_FIELD_DOWN
}

void DeviceParticles::permute(const uint32_t* device_perm, std::initializer_list<Field> fields,
                              void* scratch) {
  if (n_ == 0) return;
  if (!scratch) {
    const std::size_t need = capacity_ * permute_scratch_bytes();
    if (scratch_bytes_ < need) {
      cudaFree(scratch_);
      scratch_ = nullptr;
      scratch_bytes_ = 0;
      if (cudaMalloc(&scratch_, need) != cudaSuccess) {
        cudaGetLastError();
        throw Error("out of GPU memory allocating the " + std::to_string(need) +
                    "-byte scratch buffer for reordering " + std::to_string(n_) + " particles");
      }
      scratch_bytes_ = need;
    }
    scratch = scratch_;
  }
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((n_ + threads - 1) / threads);
#define MPSPH_FIELD_PERMUTE(name, T, ...)                                                         \
  if (listed(fields, Field::name) && holds(Field::name)) {                                        \
    gather_kernel<T><<<blocks, threads>>>(static_cast<T*>(scratch), view_.name, device_perm, n_); \
    check(cudaGetLastError(), "reorder of particle field '" #name "'");                           \
    check(cudaMemcpyAsync(view_.name, scratch, n_ * sizeof(T), cudaMemcpyDeviceToDevice),         \
          "reorder of particle field '" #name "'");                                               \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_PERMUTE)
#undef MPSPH_FIELD_PERMUTE
}

void DeviceParticles::upload_range(const ParticleStore& s, std::size_t host_first,
                                   std::size_t count, std::size_t device_first,
                                   std::initializer_list<Field> fields) {
  if (count == 0) return;
  if (device_first + count > n_ || host_first + count > s.size())
    throw Error("DeviceParticles::upload_range: entries beyond the stores");
#define MPSPH_FIELD_UP_RANGE(name, T, ...)                                                     \
  if (listed(fields, Field::name) && holds(Field::name))                                       \
    check(cudaMemcpy(view_.name + device_first, s.name.data() + host_first, count * sizeof(T), \
                     cudaMemcpyHostToDevice),                                                  \
          "upload of particle field '" #name "'");
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_UP_RANGE)
#undef MPSPH_FIELD_UP_RANGE
}

void DeviceParticles::download_range(ParticleStore& s, std::size_t device_first, std::size_t count,
                                     std::size_t host_first,
                                     std::initializer_list<Field> fields) const {
  if (count == 0) return;
  if (device_first + count > n_ || host_first + count > s.size())
    throw Error("DeviceParticles::download_range: entries beyond the stores");
#define MPSPH_FIELD_DOWN_RANGE(name, T, ...)                                                   \
  if (listed(fields, Field::name) && holds(Field::name))                                       \
    check(cudaMemcpy(s.name.data() + host_first, view_.name + device_first, count * sizeof(T), \
                     cudaMemcpyDeviceToHost),                                                  \
          "download of particle field '" #name "'");
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_DOWN_RANGE)
#undef MPSPH_FIELD_DOWN_RANGE
}

void DeviceParticles::copy_range(const DeviceParticles& from, std::size_t from_first,
                                 std::size_t count, std::size_t first,
                                 std::initializer_list<Field> fields) {
  if (count == 0) return;
  if (first + count > n_ || from_first + count > from.n_)
    throw Error("DeviceParticles::copy_range: entries beyond the stores");
#define MPSPH_FIELD_COPY_RANGE(name, T, ...)                                                   \
  if (listed(fields, Field::name) && holds(Field::name) && from.holds(Field::name))            \
    check(cudaMemcpyAsync(view_.name + first, from.view_.name + from_first, count * sizeof(T), \
                          cudaMemcpyDeviceToDevice),                                           \
          "copy of particle field '" #name "'");
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_COPY_RANGE)
#undef MPSPH_FIELD_COPY_RANGE
}

namespace {

// Field bytes of particles index[k] into records of `stride` bytes at `offset` (pack), or back.
template <class T>
__global__ void pack_kernel(unsigned char* __restrict__ out, const T* __restrict__ in,
                            const uint32_t* __restrict__ index, std::size_t n, std::size_t stride,
                            std::size_t offset) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const unsigned char* src = reinterpret_cast<const unsigned char*>(in + index[k]);
  unsigned char* dst = out + k * stride + offset;
  for (std::size_t b = 0; b < sizeof(T); ++b) dst[b] = src[b];
}

template <class T>
__global__ void unpack_kernel(T* __restrict__ out, const unsigned char* __restrict__ in,
                              std::size_t n, std::size_t stride, std::size_t offset) {
  const std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const unsigned char* src = in + k * stride + offset;
  unsigned char* dst = reinterpret_cast<unsigned char*>(out + k);
  for (std::size_t b = 0; b < sizeof(T); ++b) dst[b] = src[b];
}

// A device buffer for one pack or unpack.
struct TransferBuffer {
  void* p = nullptr;
  explicit TransferBuffer(std::size_t bytes) {
    if (bytes > 0 && cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();
      throw Error("out of GPU memory allocating " + std::to_string(bytes) +
                  " bytes for particles moving between ranks");
    }
  }
  ~TransferBuffer() { cudaFree(p); }
};

}  // namespace

std::size_t DeviceParticles::record_bytes(std::initializer_list<Field> fields) const {
  std::size_t bytes = 0;
#define MPSPH_FIELD_RECORD_BYTES(name, T, ...) \
  if (listed(fields, Field::name) && holds(Field::name)) bytes += sizeof(T);
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_RECORD_BYTES)
#undef MPSPH_FIELD_RECORD_BYTES
  return bytes;
}

std::size_t DeviceParticles::record_offset(Field f, std::initializer_list<Field> fields) const {
  std::size_t off = 0;
#define MPSPH_FIELD_OFFSET(name, T, ...) \
  if (Field::name == f) return off;      \
  if (listed(fields, Field::name) && holds(Field::name)) off += sizeof(T);
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_OFFSET)
#undef MPSPH_FIELD_OFFSET
  return off;
}

void DeviceParticles::pack(const std::vector<uint32_t>& index, std::vector<unsigned char>& out,
                           std::initializer_list<Field> fields) const {
  const std::size_t n = index.size(), stride = record_bytes(fields);
  out.resize(n * stride);
  if (n == 0) return;
  TransferBuffer idx(n * sizeof(uint32_t)), buf(n * stride);
  check(cudaMemcpy(idx.p, index.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice),
        "upload of the particles to pack");
  pack_on_device(static_cast<const uint32_t*>(idx.p), n, static_cast<unsigned char*>(buf.p),
                 fields);
  check(cudaMemcpy(out.data(), buf.p, n * stride, cudaMemcpyDeviceToHost),
        "download of packed particles");
}

void DeviceParticles::pack_on_device(const uint32_t* index, std::size_t n, unsigned char* out,
                                     std::initializer_list<Field> fields) const {
  if (n == 0) return;
  const std::size_t stride = record_bytes(fields);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
  std::size_t offset = 0;
#define MPSPH_FIELD_PACK(name, T, ...)                                              \
  if (listed(fields, Field::name) && holds(Field::name)) {                          \
    pack_kernel<T><<<blocks, threads>>>(out, view_.name, index, n, stride, offset); \
    check(cudaGetLastError(), "pack of particle field '" #name "'");                \
    offset += sizeof(T);                                                            \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_PACK)
#undef MPSPH_FIELD_PACK
}

void DeviceParticles::unpack(const unsigned char* records, std::size_t count, std::size_t first,
                             std::initializer_list<Field> fields) {
  if (count == 0) return;
  if (first + count > n_) throw Error("DeviceParticles::unpack: entries beyond the store");
  const std::size_t stride = record_bytes(fields);
  TransferBuffer buf(count * stride);
  check(cudaMemcpy(buf.p, records, count * stride, cudaMemcpyHostToDevice),
        "upload of packed particles");
  unpack_on_device(static_cast<const unsigned char*>(buf.p), count, first, fields);
  check(cudaDeviceSynchronize(), "unpack of particles");
}

void DeviceParticles::unpack_on_device(const unsigned char* records, std::size_t count,
                                       std::size_t first, std::initializer_list<Field> fields) {
  if (count == 0) return;
  if (first + count > n_) throw Error("DeviceParticles::unpack: entries beyond the store");
  const std::size_t stride = record_bytes(fields);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((count + threads - 1) / threads);
  std::size_t offset = 0;
#define MPSPH_FIELD_UNPACK(name, T, ...)                                                       \
  if (listed(fields, Field::name) && holds(Field::name)) {                                     \
    unpack_kernel<T><<<blocks, threads>>>(view_.name + first, records, count, stride, offset); \
    check(cudaGetLastError(), "unpack of particle field '" #name "'");                         \
    offset += sizeof(T);                                                                       \
  }
  MPSPH_PARTICLE_FIELDS(MPSPH_FIELD_UNPACK)
#undef MPSPH_FIELD_UNPACK
}

}  // namespace mpsph
