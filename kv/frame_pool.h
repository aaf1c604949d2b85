// Frame pool: where Task<T> coroutine frames are allocated.
//
// Contract: allocate_frame(n) returns storage for n bytes aligned for any coroutine frame;
// free_frame(p, n) takes back a block allocate_frame(n) returned, on any thread. Blocks of up to
// kMaxPooledFrameBytes are kept on per-thread free lists by size class (64-byte steps) and reused;
// larger ones go to operator new. Each thread's cached blocks are freed when it exits.
// Why: every KV call of an algorithm creates two or three frames; malloc and free of those
// were a large share of the simulator's time. Under AddressSanitizer the pool is off, so a
// use of a destroyed frame is still reported.
#pragma once

#include <cstddef>

namespace lockstep {

inline constexpr std::size_t kMaxPooledFrameBytes = 2048;

void* allocate_frame(std::size_t bytes);
void free_frame(void* frame, std::size_t bytes) noexcept;

}  // namespace lockstep
