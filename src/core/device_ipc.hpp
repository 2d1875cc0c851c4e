// Device memory shared by the processes of one node through CUDA IPC: a buffer one process
// allocates and exports by a handle, the mappings other processes open from the handle, and the
// device-to-device copies into them (over NVLink or PCIe peer access). What the device-resident
// MPI ranks exchange their halos through when they share a node (parallel/device_all_to_all.hpp).
//
// No CUDA and no MPI in this header; defined only in CUDA builds (device_ipc_gpu.cu).
#pragma once

#include <array>
#include <cstddef>

namespace mpsph {

// The bytes of a cudaIpcMemHandle_t, as sent between processes.
using IpcHandle = std::array<unsigned char, 64>;

// A growable device buffer that other processes of the node can map. Growing makes a new
// allocation (and handle); the old one is kept, "retired", until release_retired(): the other
// processes must have closed their mappings of it first.
class IpcBuffer {
 public:
  IpcBuffer() = default;
  ~IpcBuffer();
  IpcBuffer(const IpcBuffer&) = delete;
  IpcBuffer& operator=(const IpcBuffer&) = delete;

  // Room for `bytes`; true when that made a new allocation (a new handle() to send).
  bool reserve(std::size_t bytes);
  unsigned char* data() const { return ptr_; }
  std::size_t capacity() const { return cap_; }
  // The allocation's handle (valid after a reserve of at least one byte).
  const IpcHandle& handle() const { return handle_; }
  void release_retired();

 private:
  unsigned char* ptr_ = nullptr;
  unsigned char* retired_ = nullptr;
  std::size_t cap_ = 0;
  IpcHandle handle_{};
};

// Another process's IpcBuffer, mapped into this one (peer access enabled as needed).
class IpcMapping {
 public:
  IpcMapping() = default;
  ~IpcMapping();
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;

  // Maps the buffer of `h` (closing the previous mapping when the handle differs).
  void open(const IpcHandle& h);
  void close();
  unsigned char* data() const { return ptr_; }

 private:
  unsigned char* ptr_ = nullptr;
  IpcHandle handle_{};
};

// Asynchronous device-to-device copy on the default stream (either side may be a mapping), and
// the wait for every copy and kernel of this process's device.
void ipc_copy_async(void* dst, const void* src, std::size_t bytes);
void ipc_device_synchronize();

// This process's GPU as the PCI bus id "domain:bus:device.function" (to tell whether two ranks
// share one).
std::array<char, 32> current_gpu_bus_id();

}  // namespace mpsph
