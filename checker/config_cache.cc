#include "lockstep/checker/config_cache.h"

#include <algorithm>

namespace lockstep {

namespace {

// Record word 1: the state in the low half, the first variant + 1 in the high half (0: none).
constexpr std::uint64_t state_of(std::uint64_t w) { return w & 0xffffffffu; }
constexpr std::uint32_t head_of(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

std::uint64_t tag_of(std::uint64_t hash) { return hash >> 32; }

}  // namespace

ConfigCache::ConfigCache(std::size_t det_words, std::size_t ind_words)
    : det_words_(det_words),
      ind_words_(ind_words),
      record_words_(2 + det_words),
      variant_words_(1 + ind_words),
      table_(1024, 0) {}

std::size_t ConfigCache::bytes() const {
  return (table_.capacity() + records_.capacity() + variants_.capacity()) * sizeof(std::uint64_t);
}

std::uint32_t ConfigCache::add_variant(std::uint32_t next, const std::uint64_t* ind) {
  const auto v = static_cast<std::uint32_t>(variants_.size() / variant_words_);
  variants_.push_back(std::uint64_t{next} << 32);
  variants_.insert(variants_.end(), ind, ind + ind_words_);
  return v + 1;
}

bool ConfigCache::insert(std::uint64_t hash, std::uint32_t state, const std::uint64_t* det,
                         const std::uint64_t* ind) {
  if ((keys_ + 1) * 2 > table_.size()) grow();
  const std::size_t mask = table_.size() - 1;
  const std::uint64_t tag = tag_of(hash);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = table_[i];
    if (slot == 0) {
      const auto r = static_cast<std::uint32_t>(keys_);
      records_.push_back(hash);
      records_.push_back(state);
      records_.insert(records_.end(), det, det + det_words_);
      if (ind_words_ > 0) record(r)[1] |= std::uint64_t{add_variant(0, ind)} << 32;
      table_[i] = tag << 32 | (r + 1);
      ++keys_;
      ++configs_;
      return true;
    }
    if ((slot >> 32) != tag) continue;
    std::uint64_t* rec = record(static_cast<std::uint32_t>(slot & 0xffffffffu) - 1);
    if (state_of(rec[1]) != state || !std::equal(det, det + det_words_, rec + 2)) continue;
    if (ind_words_ == 0) return false;  // (D, s) is the whole configuration
    // Covered by a recorded I0 that is a subset of I? The recorded sets are kept an antichain
    // (no one contains another): a superset of I is dropped from the list on the way, since I
    // will cover it (if some I0 covers I, no superset of I can be in the antichain).
    std::uint64_t* link = &rec[1];  // the high half of *link is the next variant + 1
    for (std::uint32_t v = head_of(*link); v != 0; v = head_of(*link)) {
      std::uint64_t* var = &variants_[std::size_t{v - 1} * variant_words_];
      bool subset = true, superset = true;
      for (std::size_t w = 0; w < ind_words_; ++w) {
        subset = subset && (var[1 + w] & ~ind[w]) == 0;
        superset = superset && (ind[w] & ~var[1 + w]) == 0;
      }
      if (subset) {
        // Move to front: the set that covered this lookup is likely to cover the next one.
        if (link != &rec[1]) {
          const std::uint64_t after = var[0] & ~std::uint64_t{0xffffffffu};
          *link = (*link & 0xffffffffu) | after;
          var[0] = (var[0] & 0xffffffffu) | (rec[1] & ~std::uint64_t{0xffffffffu});
          rec[1] = state_of(rec[1]) | std::uint64_t{v} << 32;
        }
        return false;
      }
      if (superset) {
        *link = (*link & 0xffffffffu) | (var[0] & ~std::uint64_t{0xffffffffu});  // unlink
        continue;
      }
      link = &var[0];
    }
    rec[1] = state_of(rec[1]) | std::uint64_t{add_variant(head_of(rec[1]), ind)} << 32;
    ++configs_;
    return true;
  }
}

void ConfigCache::grow() {
  std::vector<std::uint64_t> bigger(table_.size() * 2, 0);
  const std::size_t mask = bigger.size() - 1;
  for (std::size_t r = 0; r < keys_; ++r) {
    const std::uint64_t hash = records_[r * record_words_];
    std::size_t i = hash & mask;
    while (bigger[i] != 0) i = (i + 1) & mask;
    bigger[i] = tag_of(hash) << 32 | (r + 1);
  }
  table_.swap(bigger);
}

}  // namespace lockstep
