#include "app/heap_policy.hpp"

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mpsph {

void keep_freed_heap_memory() {
#if defined(__GLIBC__)
  // Large blocks from the heap (never mmap), and freed memory at the heap's top returned to the
  // system only beyond 2 GiB.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace mpsph
