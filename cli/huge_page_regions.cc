#include "lockstep/cli/huge_page_regions.h"

#include <sys/mman.h>

namespace lockstep::cli {

namespace {

std::uintptr_t round_up(std::uintptr_t value, std::uintptr_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

void* HugePageRegions::take(std::size_t size, std::size_t alignment) {
  if (alignment == 0) alignment = 1;
  if (size == 0 || alignment > kHugePageBytes || size > SIZE_MAX / 2) return nullptr;
  std::uintptr_t start = round_up(next_, alignment);
  if (next_ == 0 || start + size > end_) {
    if (!map_region(size)) return nullptr;
    start = next_;  // a region starts on a huge-page boundary, so it meets any alignment
  }
  next_ = start + size;
  return reinterpret_cast<void*>(start);
}

bool HugePageRegions::map_region(std::size_t bytes) {
  const std::size_t region = round_up(bytes > kRegionBytes ? bytes : kRegionBytes, kHugePageBytes);
  const std::size_t mapped = region + kHugePageBytes;  // room to align the start
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return false;
  const std::uintptr_t start = round_up(reinterpret_cast<std::uintptr_t>(base), kHugePageBytes);
  // Only a hint: without transparent huge pages the region is ordinary memory.
  (void)madvise(reinterpret_cast<void*>(start), region, MADV_HUGEPAGE);
  next_ = start;
  end_ = start + region;
  ++regions_mapped_;
  return true;
}

}  // namespace lockstep::cli
