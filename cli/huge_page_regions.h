// HugePageRegions: address space handed out in consecutive pieces from 2 MiB-aligned regions
// that the kernel is asked to back with transparent huge pages. The system allocator of the
// lockstep program's heap (see huge_page_heap.h) is built on it.
//
// Contract: take(size, alignment) returns the start of `size` fresh, zeroed, writable bytes
// at a multiple of `alignment` (a power of two, at most 2 MiB), never overlapping an earlier
// piece, or null when the system maps no more memory. Pieces are never given back. Not
// thread-safe: the caller locks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lockstep::cli {

class HugePageRegions {
 public:
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  // Address space reserved at a time. Only pages touched take memory, so a large region costs
  // nothing but addresses; tcmalloc asks for 1 MiB or more at a time.
  static constexpr std::size_t kRegionBytes = std::size_t{64} << 20;

  void* take(std::size_t size, std::size_t alignment);
  // Regions mapped so far (each a single mmap).
  int regions_mapped() const { return regions_mapped_; }

 private:
  // Maps a fresh region of at least `bytes`, starting on a huge-page boundary. The rest of the
  // previous region is abandoned: it was never touched, so it holds no memory.
  bool map_region(std::size_t bytes);

  std::uintptr_t next_ = 0;
  std::uintptr_t end_ = 0;
  int regions_mapped_ = 0;
};

}  // namespace lockstep::cli
