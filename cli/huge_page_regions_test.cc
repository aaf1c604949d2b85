#include "lockstep/cli/huge_page_regions.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace lockstep::cli {
namespace {

std::uintptr_t address(void* p) { return reinterpret_cast<std::uintptr_t>(p); }
constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST_CASE("HugePageRegions hands out aligned, disjoint, zeroed, writable pieces", "[huge-pages]") {
  HugePageRegions regions;
  struct Piece {
    char* start;
    std::size_t size;
  };
  std::vector<Piece> pieces;
  const std::size_t sizes[] = {100, 8192, 3, kMiB, 3 * 4096, 5000};
  const std::size_t alignments[] = {1, 8192, 16, 4096, 4096, 8192};
  for (int i = 0; i < 6; ++i) {
    void* p = regions.take(sizes[i], alignments[i]);
    REQUIRE(p != nullptr);
    CHECK(address(p) % alignments[i] == 0);
    pieces.push_back({static_cast<char*>(p), sizes[i]});
  }
  // A fresh region starts on a huge-page boundary.
  CHECK(address(pieces[0].start) % HugePageRegions::kHugePageBytes == 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    CHECK(pieces[i].start[0] == 0);
    CHECK(pieces[i].start[pieces[i].size - 1] == 0);
    for (std::size_t j = i + 1; j < pieces.size(); ++j) {
      const bool disjoint = pieces[i].start + pieces[i].size <= pieces[j].start ||
                            pieces[j].start + pieces[j].size <= pieces[i].start;
      CHECK(disjoint);
    }
  }
  for (const Piece& piece : pieces) {
    piece.start[0] = 'a';
    piece.start[piece.size - 1] = 'z';
  }
  for (const Piece& piece : pieces) {
    CHECK(piece.start[0] == 'a');
    CHECK(piece.start[piece.size - 1] == 'z');
  }
  CHECK(regions.regions_mapped() == 1);
}

TEST_CASE("HugePageRegions fills a region before it maps the next", "[huge-pages]") {
  HugePageRegions regions;
  const std::size_t per_region = HugePageRegions::kRegionBytes / kMiB;
  char* previous_end = nullptr;
  for (std::size_t i = 0; i < per_region; ++i) {
    char* p = static_cast<char*>(regions.take(kMiB, 8192));
    REQUIRE(p != nullptr);
    if (previous_end != nullptr) CHECK(p == previous_end);  // consecutive: nothing wasted
    previous_end = p + kMiB;
  }
  CHECK(regions.regions_mapped() == 1);
  void* next = regions.take(kMiB, 8192);
  REQUIRE(next != nullptr);
  CHECK(regions.regions_mapped() == 2);
  CHECK(address(next) % HugePageRegions::kHugePageBytes == 0);
}

TEST_CASE("HugePageRegions serves a piece larger than a region", "[huge-pages]") {
  HugePageRegions regions;
  const std::size_t size = HugePageRegions::kRegionBytes + 3 * kMiB + 5;
  char* p = static_cast<char*>(regions.take(size, 8192));
  REQUIRE(p != nullptr);
  p[0] = 1;
  p[size - 1] = 2;
  CHECK(p[0] + p[size - 1] == 3);
  // The next piece comes after it, in the same (large) region or a new one.
  char* q = static_cast<char*>(regions.take(4096, 4096));
  REQUIRE(q != nullptr);
  CHECK((q >= p + size || q + 4096 <= p));
}

TEST_CASE("HugePageRegions refuses what it cannot serve", "[huge-pages]") {
  HugePageRegions regions;
  CHECK(regions.take(0, 8) == nullptr);
  CHECK(regions.take(4096, 2 * HugePageRegions::kHugePageBytes) == nullptr);
  CHECK(regions.take(SIZE_MAX - 10, 8) == nullptr);
  CHECK(regions.regions_mapped() == 0);
}

}  // namespace
}  // namespace lockstep::cli
