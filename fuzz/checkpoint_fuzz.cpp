// libFuzzer harness: the checkpoint reader on arbitrary file contents (written to a per-process
// temporary file first). Expected outcomes: a store and state, or mpsph::Error naming the file
// and problem. Every HDF5 object opened must be closed again afterwards.
#include <hdf5.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "io/checkpoint.hpp"

namespace {

const std::string& scratch_file() {
  static const std::string path =
      "/tmp/mpsph_fuzz_checkpoint_" + std::to_string(static_cast<long>(getpid())) + ".h5";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string& path = scratch_file();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    mpsph::CheckpointState state;
    mpsph::read_checkpoint(path, &state);
  } catch (const mpsph::Error&) {
  }
  // Every HDF5 object the reader opened is closed again, on success and on every error path.
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) std::abort();
  std::remove(path.c_str());
  return 0;
}
