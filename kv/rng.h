// Rng: a small, fast, seedable pseudo-random stream (xoshiro256**, seeded by SplitMix64).
//
// Contract: the same seed gives the same sequence on every platform and build type. Streams
// are derived, never shared: `fork(label)` gives an independent stream whose seed depends only
// on this stream's seed and the label, not on how many numbers were drawn, so adding a new
// consumer does not perturb the others.
#pragma once

#include <cstdint>
#include <string_view>

namespace lockstep {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : seed_(seed) { reseed(seed); }

  std::uint64_t seed() const { return seed_; }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound) without modulo bias (Lemire's method). bound must be > 0.
  std::uint64_t below(std::uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next_u64()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform in [lo, hi] (inclusive).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }

  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  bool chance(double p) { return unit() < p; }

  Rng fork(std::string_view label) const { return Rng(mix(seed_, label)); }
  Rng fork(std::uint64_t index) const { return Rng(splitmix(seed_ ^ splitmix(index + 0x9E37))); }

  static std::uint64_t mix(std::uint64_t seed, std::string_view label) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the label
    for (char c : label) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ULL;
    }
    return splitmix(seed ^ splitmix(h));
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  }
  void reseed(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& word : s_) {
      x += 0x9E3779B97F4A7C15ULL;
      word = splitmix(x);
    }
  }

  std::uint64_t seed_;
  std::uint64_t s_[4];
};

}  // namespace lockstep
