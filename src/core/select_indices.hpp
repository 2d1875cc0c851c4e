// The indices that satisfy a predicate, listed on the OpenMP threads: the range is cut into
// blocks (their number set by its length, not by the threads), each block lists its own, and
// the lists are joined in block order - ascending, the same on any number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mpsph {

// The i in [begin, end) with pred(i), ascending, as Index values.
template <class Index, class Pred>
std::vector<Index> select_indices(std::size_t begin, std::size_t end, Pred pred) {
  const std::size_t n = end > begin ? end - begin : 0;
  const std::size_t blocks = std::max<std::size_t>(1, std::min<std::size_t>(256, n / 32768));
  std::vector<std::vector<Index>> part(blocks);
  auto block_begin = [&](std::size_t b) { return begin + n * b / blocks; };
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b)
    for (std::size_t i = block_begin(std::size_t(b)); i < block_begin(std::size_t(b) + 1); ++i)
      if (pred(i)) part[std::size_t(b)].push_back(Index(i));
  if (blocks == 1) return std::move(part[0]);
  std::vector<std::size_t> at(blocks + 1, 0);
  for (std::size_t b = 0; b < blocks; ++b) at[b + 1] = at[b] + part[b].size();
  std::vector<Index> out(at[blocks]);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b)
    std::copy(part[std::size_t(b)].begin(), part[std::size_t(b)].end(),
              out.begin() + std::ptrdiff_t(at[std::size_t(b)]));
  return out;
}

}  // namespace mpsph
