// All-to-all exchanges of device memory between the GPU ranks of one node, GPU to GPU through CUDA
// IPC (core/device_ipc.hpp): each rank exports a receive buffer, the others map it and copy their
// parts into it (NVLink or PCIe peer copies); nothing passes through the host. The
// device-resident ranks send their SPH halos this way when every rank is on one node and the
// runtime allows it (mpi.gpu_transfers, docs/mpi.md); otherwise they stage through host memory
// and MPI (Debian's Open MPI is not CUDA-aware).
#pragma once

#ifdef MPSPH_HAVE_CUDA

#include <cstddef>
#include <string>
#include <vector>

#include "core/device_ipc.hpp"
#include "parallel/mpi_comm.hpp"

namespace mpsph {

class DeviceAllToAll {
 public:
  // Collective: whether the ranks can exchange this way - all on one node, and a trial exchange of
  // a few bytes between every pair arrives intact. Never throws for a refusal of the runtime:
  // usable() is then false and reason() says why.
  explicit DeviceAllToAll(const MpiComm& comm);
  DeviceAllToAll(const DeviceAllToAll&) = delete;
  DeviceAllToAll& operator=(const DeviceAllToAll&) = delete;

  bool usable() const { return usable_; }
  std::size_t device_bytes() const { return recv_.capacity(); }
  const std::string& reason() const { return reason_; }

  // Collective: bytes [send_off[r], send_off[r + 1]) of `send` (device) to rank r; what rank r
  // sends here lands at [recv_off[r], recv_off[r + 1]) of the returned device buffer (valid
  // until the next exchange). Waits for this rank's device work before and after the copies.
  const unsigned char* exchange(const unsigned char* send, const std::vector<std::size_t>& send_off,
                                const std::vector<std::size_t>& recv_off);

 private:
  const MpiComm& comm_;
  bool usable_ = false;
  std::string reason_;
  IpcBuffer recv_;
  std::vector<IpcMapping> peers_;  // the other ranks' receive buffers
};

}  // namespace mpsph

#endif
