#include "lockstep/kv/frame_pool.h"

#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define LOCKSTEP_FRAME_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCKSTEP_FRAME_POOL 0
#endif
#endif
#ifndef LOCKSTEP_FRAME_POOL
#define LOCKSTEP_FRAME_POOL 1
#endif

namespace lockstep {

namespace {

constexpr std::size_t kClassBytes = 64;
constexpr std::size_t kClasses = kMaxPooledFrameBytes / kClassBytes;

std::size_t size_class(std::size_t bytes) { return (bytes + kClassBytes - 1) / kClassBytes - 1; }

// Set once this thread's free lists are destroyed (thread exit): frames freed later (by
// objects destroyed after them) go straight back to operator delete.
thread_local bool t_free_lists_gone = false;

// One thread's free blocks, by size class. A free block's first bytes link to the next one.
struct FreeLists {
  struct Block {
    Block* next;
  };
  Block* heads[kClasses] = {};
  FreeLists() = default;
  FreeLists(const FreeLists&) = delete;
  FreeLists& operator=(const FreeLists&) = delete;
  ~FreeLists() {
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (Block* b = heads[c]) {
        heads[c] = b->next;
        ::operator delete(static_cast<void*>(b));
      }
    }
    t_free_lists_gone = true;
  }
};

FreeLists& free_lists() {
  thread_local FreeLists lists;
  return lists;
}

// Unpooled blocks (empty or too large, the pool off, or this thread's lists gone) come from
// operator new and go back to the unsized operator delete, so a pooled block freed after the
// lists are gone is returned the same way.
bool pooled(std::size_t bytes) {
  return LOCKSTEP_FRAME_POOL && bytes != 0 && bytes <= kMaxPooledFrameBytes && !t_free_lists_gone;
}

}  // namespace

void* allocate_frame(std::size_t bytes) {
  if (!pooled(bytes)) return ::operator new(bytes);
  const std::size_t c = size_class(bytes);
  FreeLists& lists = free_lists();
  if (FreeLists::Block* b = lists.heads[c]) {
    lists.heads[c] = b->next;
    return b;
  }
  return ::operator new((c + 1) * kClassBytes);
}

void free_frame(void* frame, std::size_t bytes) noexcept {
  if (!pooled(bytes)) {
    ::operator delete(frame);
    return;
  }
  FreeLists::Block*& head = free_lists().heads[size_class(bytes)];
  auto* b = static_cast<FreeLists::Block*>(frame);
  b->next = head;
  head = b;
}

}  // namespace lockstep
