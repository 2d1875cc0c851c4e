// Shared helpers for the io tests: scratch paths, a particle store with full-mantissa values, a
// bitwise comparison and raw HDF5 edits of a written file (to make the bad inputs readers meet).
#pragma once

#include <hdf5.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/error_message.hpp"
#include "core/particle_store.hpp"

namespace mpsph::test {

// A per-process scratch directory under the system temp dir, removed when the process exits.
struct ScratchDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("mpsph_io_test_" + std::to_string(static_cast<long>(getpid())));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline std::string scratch_path(const std::string& name) {
  static const ScratchDir dir;
  return (dir.path / name).string();
}

// `types` gives each particle's type (any order). Values are random with full mantissas, plus a
// subnormal, a negative zero and a huge value, so only a bit-exact path reproduces them.
inline ParticleStore make_store(const std::vector<uint8_t>& types, unsigned seed = 42) {
  ParticleStore s;
  s.resize(types.size());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (std::size_t i = 0; i < types.size(); ++i) {
    s.type[i] = types[i];
    s.pos[i] = {uni(rng), uni(rng), uni(rng)};
    s.vel[i] = {uni(rng), uni(rng), uni(rng)};
    s.mass[i] = 1.0 + uni(rng);
    s.id[i] = (uint64_t{1} << 40) + 7 * i;  // above 2^32: catches a 32-bit id path
    s.u[i] = 2.0 + uni(rng);
    s.h[i] = static_cast<float>(0.1 + 0.05 * uni(rng));
    s.rho[i] = static_cast<float>(3.0 + uni(rng));
    s.acc[i] = {uni(rng), uni(rng), uni(rng)};
    s.dudt[i] = uni(rng);
    s.pot[i] = -1.0 + 0.1 * uni(rng);
    s.divv[i] = static_cast<float>(uni(rng));
    s.nngb[i] = static_cast<int32_t>(40 + i % 17);
  }
  if (!types.empty()) {
    s.pos[0].x = 4.9406564584124654e-324;  // smallest subnormal
    s.vel[0].y = -0.0;
    s.u[0] = 1.2345678901234567e300;
  }
  return s;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  // memcmp must not see the null data of empty vectors (an empty part of a file).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Opens a written file read-write with the plain HDF5 API and hands the file id to `edit`.
template <class F>
void edit_file(const std::string& path, F&& edit) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  edit(f);
  H5Fclose(f);
}

// Replaces dataset `name` by a new one of the given type and shape holding `data`.
inline void replace_dataset(hid_t file, const std::string& name, hid_t type,
                            const std::vector<hsize_t>& dims, const void* data) {
  H5Ldelete(file, name.c_str(), H5P_DEFAULT);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t d =
      H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Sclose(space);
}

}  // namespace mpsph::test
