// How the process's heap serves large allocations (glibc). By default glibc maps every block of
// more than 32 MiB afresh (mmap) and unmaps it on free, so each large temporary - a vector of one
// double per particle of a rank holding 5e6 - is page-faulted in again, page by page, every time
// it is allocated: 18.6 ms for a 40 MB vector filled once against 2.3 ms with the memory kept
// (this VM, 2026-11-27), and worse on many threads, whose faults serialise in the kernel. The
// host halo and decomposition stages of the MPI ranks allocate dozens of such temporaries per
// step. keep_freed_heap_memory() serves them from the heap and keeps freed memory for the next
// allocation (mallopt M_MMAP_MAX = 0, M_TRIM_THRESHOLD = 2 GiB): the process's resident size
// stays at its peak instead of shrinking between stages. Nothing on other C libraries.
#pragma once

namespace mpsph {

void keep_freed_heap_memory();

}  // namespace mpsph
