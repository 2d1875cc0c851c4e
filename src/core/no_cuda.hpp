// The error of every GPU entry point in a build without CUDA (the CPU-only definitions of
// make_gpu_backend, make_gpu_sph_passes, make_gpu_tree_with_sources, select_gpu).
#pragma once

#include "core/error.hpp"

namespace mpsph {

[[noreturn]] inline void throw_built_without_cuda() {
  throw Error(
      "this mpsph was built without CUDA (nvcc was not found at configure time): "
      "rebuild on a machine with the CUDA Toolkit to use --device gpu");
}

}  // namespace mpsph
