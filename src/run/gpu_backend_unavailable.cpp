// make_gpu_backend() of a build without CUDA.
#ifndef MPSPH_HAVE_CUDA
#include "core/error.hpp"
#include "run/step_backend.hpp"

namespace mpsph {

std::unique_ptr<StepBackend> make_gpu_backend(const StepContext&) {
  throw Error(
      "this mpsph was built without CUDA (nvcc was not found at configure time): "
      "rebuild on a machine with the CUDA Toolkit to use --device gpu");
}

}  // namespace mpsph
#endif
