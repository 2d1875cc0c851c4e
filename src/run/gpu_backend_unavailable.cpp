// make_gpu_backend() of a build without CUDA.
#ifndef MPSPH_HAVE_CUDA
#include "core/no_cuda.hpp"
#include "run/gpu_ranks.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext&) {
  throw_built_without_cuda();
}

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext&, std::unique_ptr<GpuRanks>) {
  throw_built_without_cuda();
}

}  // namespace mpsph
#endif
