// Run-time choice of backend: is a GPU present, and did this build include CUDA at all?
#pragma once

#include <string>

namespace mpsph {

enum class Device { Auto, Cpu, Gpu };

struct GpuProbe {
  bool available = false;
  std::string name;    // e.g. "NVIDIA H200"
  std::string reason;  // why not available
};

// Never throws; safe to call in a CPU-only build.
GpuProbe probe_gpu();

// Parses "auto|cpu|gpu" (throws mpsph::Error naming the allowed values).
Device parse_device(const std::string& s);

// Resolves Auto, and throws a clear error when Gpu is asked for but cannot be had.
Device resolve_device(Device requested);

const char* device_name(Device d);

// The GPUs of one host shared by its processes (MPI ranks): makes GPU `local_rank` modulo the
// number of GPUs the current device of this process and returns its index. Call before any other
// CUDA work. mpsph::Error when there is no GPU (or no CUDA in this build).
int select_gpu(int local_rank);

}  // namespace mpsph
