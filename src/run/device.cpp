#include "run/device.hpp"

#include "core/error.hpp"
#include "core/no_cuda.hpp"

namespace mpsph {

#ifndef MPSPH_HAVE_CUDA
GpuProbe probe_gpu() {
  GpuProbe p;
  p.reason = "this mpsph was built without CUDA (nvcc was not found at configure time)";
  return p;
}

int select_gpu(int) {
  throw_built_without_cuda();
}
#endif

Device parse_device(const std::string& s) {
  if (s == "auto") return Device::Auto;
  if (s == "cpu") return Device::Cpu;
  if (s == "gpu") return Device::Gpu;
  throw Error("unknown device '" + s + "' (allowed: auto, cpu, gpu)");
}

Device resolve_device(Device requested) {
  if (requested == Device::Cpu) return Device::Cpu;
  const GpuProbe p = probe_gpu();
  if (requested == Device::Gpu && !p.available)
    throw Error("--device gpu was requested but no GPU can be used: " + p.reason);
  return p.available ? Device::Gpu : Device::Cpu;
}

const char* device_name(Device d) {
  switch (d) {
    case Device::Auto:
      return "auto";
    case Device::Cpu:
      return "cpu";
    case Device::Gpu:
      return "gpu";
  }
  return "?";
}

}  // namespace mpsph
