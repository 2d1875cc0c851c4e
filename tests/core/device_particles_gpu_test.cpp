// DeviceParticles' transfers of parts of the store (the device-resident MPI ranks,
// run/gpu_ranks.hpp): records of every field move particles byte for byte, and the range copies
// host <-> device and device -> device touch exactly the entries asked for.
#ifdef MPSPH_HAVE_CUDA
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "core/device_particles.hpp"
#include "core/rng.hpp"

using namespace mpsph;

namespace {

// n particles whose every field holds pseudo-random bytes (types 0-5 spread over them).
ParticleStore random_particles(std::size_t n, uint64_t seed) {
  ParticleStore s;
  s.resize(n);
  uint32_t stream = 0;
  s.for_each_field([&](const FieldInfo&, auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    for (std::size_t i = 0; i < n; ++i) {
      unsigned char bytes[sizeof(T)];
      for (std::size_t b = 0; b < sizeof(T); ++b)
        bytes[b] = static_cast<unsigned char>(random_bits(seed + i, b, stream) >> 24);
      std::memcpy(&v[i], bytes, sizeof(T));
    }
    ++stream;
  });
  for (std::size_t i = 0; i < n; ++i) s.type[i] = uint8_t(i % kNumTypes);
  return s;
}

// Field `name` of a[ia] and b[ib], byte for byte, for every field; the first that differs.
std::string differing_field(const ParticleStore& a, std::size_t ia, const ParticleStore& b,
                            std::size_t ib) {
  std::string diff;
  const ParticleStore& bb = b;
  a.for_each_field([&](const FieldInfo& fa, const auto& va) {
    bb.for_each_field([&](const FieldInfo& fb, const auto& vb) {
      using A = typename std::decay_t<decltype(va)>::value_type;
      using B = typename std::decay_t<decltype(vb)>::value_type;
      if constexpr (std::is_same_v<A, B>) {
        if (diff.empty() && std::strcmp(fa.member, fb.member) == 0 &&
            std::memcmp(&va[ia], &vb[ib], sizeof(A)) != 0)
          diff = fa.member;
      }
    });
  });
  return diff;
}

}  // namespace

TEST_CASE("device particles: packed records move every field of a particle byte for byte",
          "[gpu][memory]") {
  const ParticleStore a = random_particles(1000, 11);
  DeviceParticles d;
  d.upload(a);
  REQUIRE(d.record_bytes() == DeviceParticles::bytes_per_particle());
  const std::vector<uint32_t> index = {999, 0, 17, 17, 500, 3, 998};
  std::vector<unsigned char> records;
  d.pack(index, records);
  REQUIRE(records.size() == index.size() * d.record_bytes());
  // The type byte sits at record_offset(type) (what the ranks count arrivals by).
  for (std::size_t k = 0; k < index.size(); ++k)
    CHECK(records[k * d.record_bytes() + d.record_offset(Field::type)] == a.type[index[k]]);
  // Into the middle of another store: the entries around keep theirs.
  const ParticleStore b = random_particles(20, 99);
  DeviceParticles e;
  e.upload(b);
  e.unpack(records.data(), index.size(), 5);
  ParticleStore got;
  e.download(got);
  for (std::size_t k = 0; k < index.size(); ++k) {
    INFO("record " << k);
    CHECK(differing_field(got, 5 + k, a, index[k]).empty());
  }
  for (std::size_t i : {0, 1, 2, 3, 4, 12, 13, 19}) {
    INFO("untouched entry " << i);
    CHECK(differing_field(got, i, b, i).empty());
  }
  CHECK_THROWS(e.unpack(records.data(), index.size(), 15));  // beyond the store

  // Records of some fields (a halo's ghosts): those fields only, in table order.
  std::vector<unsigned char> some;
  d.pack(index, some, {Field::h, Field::pos});
  REQUIRE(d.record_bytes({Field::h, Field::pos}) == sizeof(Vec3d) + sizeof(float));
  REQUIRE(some.size() == index.size() * (sizeof(Vec3d) + sizeof(float)));
  CHECK(d.record_offset(Field::h, {Field::pos, Field::h}) == sizeof(Vec3d));
  DeviceParticles f;
  f.upload(b);
  f.unpack(some.data(), index.size(), 3, {Field::pos, Field::h});
  ParticleStore part;
  f.download(part);
  for (std::size_t k = 0; k < index.size(); ++k) {
    INFO("record " << k);
    CHECK(std::memcmp(&part.pos[3 + k], &a.pos[index[k]], sizeof(Vec3d)) == 0);
    CHECK(std::memcmp(&part.h[3 + k], &a.h[index[k]], sizeof(float)) == 0);
    CHECK(std::memcmp(&part.mass[3 + k], &b.mass[3 + k], sizeof(double)) == 0);
    CHECK(std::memcmp(&part.vel[3 + k], &b.vel[3 + k], sizeof(Vec3d)) == 0);
  }
}

TEST_CASE("device particles: range transfers touch exactly the entries asked for",
          "[gpu][memory]") {
  const ParticleStore a = random_particles(300, 5);
  const ParticleStore b = random_particles(300, 77);
  DeviceParticles d;
  d.upload(a);
  // Host b[100, 150) -> device [200, 250), positions and masses only.
  d.upload_range(b, 100, 50, 200, {Field::pos, Field::mass});
  ParticleStore got;
  d.download(got);
  for (std::size_t i = 0; i < 300; ++i) {
    const bool moved = i >= 200 && i < 250;
    INFO("entry " << i);
    CHECK(std::memcmp(&got.pos[i], moved ? &b.pos[i - 100] : &a.pos[i], sizeof(Vec3d)) == 0);
    CHECK(std::memcmp(&got.mass[i], moved ? &b.mass[i - 100] : &a.mass[i], sizeof(double)) == 0);
    CHECK(std::memcmp(&got.h[i], &a.h[i], sizeof(float)) == 0);
  }
  // Device [10, 40) -> host c[60, 90), every field; the rest of c untouched.
  ParticleStore c = b;
  d.download_range(c, 10, 30, 60);
  for (std::size_t i = 0; i < 300; ++i) {
    INFO("host entry " << i);
    if (i >= 60 && i < 90)
      CHECK(differing_field(c, i, got, i - 50).empty());
    else
      CHECK(differing_field(c, i, b, i).empty());
  }
  // Device d[0, 25) -> device e[275, 300), h only.
  DeviceParticles e;
  e.upload(b);
  e.copy_range(d, 0, 25, 275, {Field::h});
  ParticleStore f;
  e.download(f);
  for (std::size_t i = 0; i < 300; ++i) {
    INFO("device entry " << i);
    CHECK(std::memcmp(&f.h[i], i >= 275 ? &got.h[i - 275] : &b.h[i], sizeof(float)) == 0);
    CHECK(std::memcmp(&f.pos[i], &b.pos[i], sizeof(Vec3d)) == 0);
  }
  CHECK_THROWS(d.download_range(c, 290, 20, 0));  // beyond the device store
}

#endif  // MPSPH_HAVE_CUDA
