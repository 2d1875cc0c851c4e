// Shared by the tree-gravity tests: error percentiles of tree accelerations against a reference.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/vec3.hpp"

namespace mpsph::test {

struct ErrorStats {
  double median, p99, p999, max;
};

// Percentiles of |a - a_ref| / |a_ref| over the listed targets.
inline ErrorStats relative_errors(const std::vector<Vec3d>& acc, const std::vector<Vec3d>& ref,
                                  const std::vector<std::size_t>& targets) {
  std::vector<double> e;
  e.reserve(targets.size());
  for (std::size_t i : targets) e.push_back(norm(acc[i] - ref[i]) / norm(ref[i]));
  std::sort(e.begin(), e.end());
  const auto at = [&e](double q) { return e[std::min(e.size() - 1, std::size_t(q * e.size()))]; };
  return {at(0.5), at(0.99), at(0.999), e.back()};
}

}  // namespace mpsph::test
