// One growable device buffer lent in turn to the stages whose temporaries never live at the same
// time (issue #16 item 4, docs/PERFORMANCE.md "Memory and the largest run"): the order stage's
// sort keys and reorder buffer, the SPH leaf lists (recorded by the density pass, read by the
// force pass) and the gravity tree's sort buffers. Each borrower asks for its bytes with
// acquire(), which invalidates whatever an earlier borrower left there; a borrower that reads
// its contents in a later call (the leaf lists) checks generation() first.
//
// Declared for every build; defined only when CUDA is compiled in (device_scratch_gpu.cu).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpsph {

class DeviceScratch {
 public:
  DeviceScratch() = default;
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `bytes` bytes (256-byte aligned), starting a new generation. Grows when needed
  // (the old buffer is freed first, so the device never holds both); out of device memory is an
  // mpsph::Error naming `what`, the bytes asked and the bytes free.
  void* acquire(std::size_t bytes, const char* what);
  // Incremented by every acquire(): contents written in generation g are intact while
  // generation() == g.
  uint64_t generation() const { return generation_; }
  std::size_t bytes() const { return bytes_; }

  // Offsets of consecutive 256-byte aligned pieces inside one acquisition.
  static constexpr std::size_t align(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace mpsph
