// libFuzzer harness: the checkpoint reader on arbitrary file contents (written to a per-process
// temporary file first). Expected outcomes: a store and state, or mpsph::Error naming the file
// and problem. Every HDF5 object opened must be closed again afterwards (hdf5_reader_harness.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "hdf5_reader_harness.hpp"
#include "io/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return mpsph::fuzz::run_hdf5_reader("checkpoint", data, size, [](const std::string& path) {
    mpsph::CheckpointState state;
    mpsph::read_checkpoint(path, &state);
  });
}
