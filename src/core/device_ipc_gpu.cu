// CUDA IPC buffers and mappings (device_ipc.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_ipc.hpp"
#include "core/error.hpp"

namespace mpsph {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(IpcHandle), "the IPC handle's size");

IpcBuffer::~IpcBuffer() {
  cudaFree(ptr_);
  cudaFree(retired_);
}

bool IpcBuffer::reserve(std::size_t bytes) {
  if (bytes <= cap_) return false;
  const std::size_t n = std::max<std::size_t>(bytes + bytes / 4, 1 << 20);
  void* p = nullptr;
  if (cudaMalloc(&p, n) != cudaSuccess) {
    cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw Error(
        "out of GPU memory allocating the receive buffer of the device transfers between "
        "ranks: " +
        std::to_string(n) + " bytes asked, " + std::to_string(free_b) + " bytes free");
  }
  cudaIpcMemHandle_t h;
  const cudaError_t err = cudaIpcGetMemHandle(&h, p);
  if (err != cudaSuccess) {
    cudaFree(p);
    cuda_check(err, "cudaIpcGetMemHandle (the device transfers between ranks)");
  }
  if (retired_) cudaFree(retired_);
  retired_ = ptr_;
  ptr_ = static_cast<unsigned char*>(p);
  cap_ = n;
  std::memcpy(handle_.data(), &h, sizeof h);
  return true;
}

void IpcBuffer::release_retired() {
  if (retired_) cudaFree(retired_);
  retired_ = nullptr;
}

IpcMapping::~IpcMapping() {
  close();
}

void IpcMapping::open(const IpcHandle& h) {
  if (ptr_ && h == handle_) return;
  close();
  cudaIpcMemHandle_t ch;
  std::memcpy(&ch, h.data(), sizeof ch);
  void* p = nullptr;
  cuda_check(cudaIpcOpenMemHandle(&p, ch, cudaIpcMemLazyEnablePeerAccess),
             "cudaIpcOpenMemHandle (the device transfers between ranks)");
  ptr_ = static_cast<unsigned char*>(p);
  handle_ = h;
}

void IpcMapping::close() {
  if (ptr_) cudaIpcCloseMemHandle(ptr_);
  ptr_ = nullptr;
}

void ipc_copy_async(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0)
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault),
               "a device-to-device copy between ranks");
}

void ipc_device_synchronize() {
  cuda_check(cudaDeviceSynchronize(), "waiting for the device");
}

std::array<char, 32> current_gpu_bus_id() {
  std::array<char, 32> id{};
  int d = 0;
  cuda_check(cudaGetDevice(&d), "cudaGetDevice");
  cuda_check(cudaDeviceGetPCIBusId(id.data(), int(id.size()), d), "cudaDeviceGetPCIBusId");
  return id;
}

}  // namespace mpsph
