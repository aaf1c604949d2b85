#include "lockstep/cli/huge_page_heap.h"

#include <gperftools/malloc_extension.h>

#include <cstddef>
#include <mutex>

#include "lockstep/cli/huge_page_regions.h"

namespace lockstep::cli {

namespace {

// tcmalloc's system allocator: pieces of huge-page regions, or tcmalloc's own allocator's
// memory when no region can be mapped. tcmalloc calls Alloc under its own lock and returns
// memory with madvise, never through this class; the mutex keeps it correct without relying
// on the first.
class HugePageSystemAllocator final : public SysAllocator {
 public:
  explicit HugePageSystemAllocator(SysAllocator* fallback) : fallback_(fallback) {}

  void* Alloc(std::size_t size, std::size_t* actual_size, std::size_t alignment) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (void* piece = regions_.take(size, alignment); piece != nullptr) {
        if (actual_size != nullptr) *actual_size = size;
        return piece;
      }
    }
    return fallback_->Alloc(size, actual_size, alignment);
  }

 private:
  SysAllocator* const fallback_;
  std::mutex mutex_;
  HugePageRegions regions_;
};

}  // namespace

bool install_huge_page_heap() {
  MallocExtension* extension = MallocExtension::instance();
  if (extension == nullptr) return false;
  SysAllocator* fallback = extension->GetSystemAllocator();
  if (fallback == nullptr) return false;
  // Never freed: tcmalloc may ask it for memory until the process ends.
  extension->SetSystemAllocator(new HugePageSystemAllocator(fallback));
  return true;
}

}  // namespace lockstep::cli
