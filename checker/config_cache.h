// The linearizability search's memory of configurations it has explored, with subsumption.
//
// A configuration is (D, I, s): the determinate operations linearized (D), the indeterminate
// ones linearized (I: operations with no return, which may take effect at any time after their
// call, or never), and the model state s. If the search failed from (D, I, s), it fails from
// (D, I', s) for every I' that contains I: an indeterminate operation constrains nothing (it
// has no return that must be reached), so every way on from (D, I', s) is a way on from
// (D, I, s) that leaves the operations of I' \ I out. Such a configuration is "covered", and
// need not be explored. That is what keeps crashed writes tractable: a crashed write linearized
// and then overwritten leaves the state as it was, and the configuration it leads to is covered
// by the one without it.
//
// Layout (what the search's time goes to: one cache miss per lookup, ideally): an open-address
// table of 64-bit slots, each a 32-bit hash tag and a record number, so that a probe past
// another key rarely touches its record; records [hash, state | first variant << 32, D
// words...] in one flat array; variants (the I sets recorded for one (D, s), a linked list kept
// an antichain) [next << 32, I words...] in another. Without indeterminate operations there are
// no variants: (D, s) alone is the configuration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockstep {

class ConfigCache {
 public:
  // `det_words` and `ind_words`: 64-bit words of the D and I bitsets.
  ConfigCache(std::size_t det_words, std::size_t ind_words);

  // Records (D, I, state) unless a recorded (D, I0, state) with I0 a subset of I covers it.
  // Returns true when recorded (new and not covered). `hash` is the caller's hash of
  // (D, state), any well-mixed 64 bits; `ind` may be null when ind_words is 0.
  bool insert(std::uint64_t hash, std::uint32_t state, const std::uint64_t* det,
              const std::uint64_t* ind);

  std::size_t size() const { return configs_; }  // configurations recorded
  std::size_t bytes() const;                     // heap held, counted against the budget

 private:
  std::uint64_t* record(std::uint32_t r) { return &records_[std::size_t{r} * record_words_]; }
  std::uint32_t add_variant(std::uint32_t next, const std::uint64_t* ind);
  void grow();

  std::size_t det_words_, ind_words_, record_words_, variant_words_;
  std::vector<std::uint64_t> table_;  // 0: empty; else tag << 32 | (record + 1)
  std::vector<std::uint64_t> records_;
  std::vector<std::uint64_t> variants_;
  std::size_t keys_ = 0, configs_ = 0;
};

}  // namespace lockstep
