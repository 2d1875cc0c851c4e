// libFuzzer harness: the HDF5 initial-conditions reader (GADGET/SWIFT layout) on arbitrary file
// contents. The input is written to a per-process temporary file that the reader opens. Expected
// outcomes: particles, or mpsph::Error naming the file and problem. Every HDF5 object opened must
// be closed again afterwards (hdf5_reader_harness.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "hdf5_reader_harness.hpp"
#include "io/snapshot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return mpsph::fuzz::run_hdf5_reader("ic", data, size, [](const std::string& path) {
    mpsph::SnapshotMeta meta;
    mpsph::read_snapshot(path, &meta);
  });
}
