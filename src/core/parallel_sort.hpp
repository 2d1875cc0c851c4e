// std::sort on the OpenMP threads: libstdc++'s parallel mode (__gnu_parallel::sort, a multiway
// mergesort) when the build has OpenMP and libstdc++, std::sort otherwise. For comparators that
// order every pair of distinct elements (an index or id as the last criterion), the result is the
// one std::sort gives, whatever the number of threads.
#pragma once

#include <algorithm>  // first: defines __GLIBCXX__ when the library is libstdc++
#if defined(_OPENMP) && defined(__GLIBCXX__)
#include <parallel/algorithm>
#endif

namespace mpsph {

template <class It, class Compare>
void parallel_sort(It first, It last, Compare comp) {
#if defined(_OPENMP) && defined(__GLIBCXX__)
  __gnu_parallel::sort(first, last, comp);
#else
  std::sort(first, last, comp);
#endif
}

}  // namespace mpsph
