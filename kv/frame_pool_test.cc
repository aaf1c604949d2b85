#include "lockstep/kv/frame_pool.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

namespace lockstep {
namespace {

struct Block {
  unsigned char* bytes;
  std::size_t size;
  unsigned char fill;
};

TEST_CASE("frame pool: live blocks never overlap and keep their bytes across reuse", "[frame_pool]") {
  std::vector<Block> live;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int round = 0; round < 20000; ++round) {
    if (!live.empty() && next() % 2 == 0) {
      const std::size_t i = next() % live.size();
      const Block b = live[i];
      for (std::size_t k = 0; k < b.size; ++k) REQUIRE(b.bytes[k] == b.fill);
      free_frame(b.bytes, b.size);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      // Sizes across the pooled classes and beyond them.
      const std::size_t size = 1 + next() % (kMaxPooledFrameBytes + 512);
      auto* p = static_cast<unsigned char*>(allocate_frame(size));
      REQUIRE(reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t) == 0);
      const auto fill = static_cast<unsigned char>(next());
      std::memset(p, fill, size);
      live.push_back({p, size, fill});
    }
  }
  for (const Block& b : live) {
    for (std::size_t k = 0; k < b.size; ++k) REQUIRE(b.bytes[k] == b.fill);
    free_frame(b.bytes, b.size);
  }
}

}  // namespace
}  // namespace lockstep
