// The part the HDF5 reader harnesses share: the fuzz input is written to a per-process temporary
// file, `read(path)` opens it, mpsph::Error is an expected outcome, and every HDF5 object the
// reader opened must be closed again afterwards (on success and on every error path).
#pragma once

#include <hdf5.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace mpsph::fuzz {

template <class Read>
int run_hdf5_reader(const char* name, const uint8_t* data, std::size_t size, Read&& read) {
  const std::string path = std::string("/tmp/mpsph_fuzz_") + name + "_" +
                           std::to_string(static_cast<long>(getpid())) + ".h5";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    read(path);
  } catch (const mpsph::Error&) {
  }
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) std::abort();
  std::remove(path.c_str());
  return 0;
}

}  // namespace mpsph::fuzz
