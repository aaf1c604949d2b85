// What the linearizability search may know about a model's operations beyond its step
// function, spelled out per model here since models do not say it themselves. Every default is
// the answer that is always correct, only without the reduction it enables.
//
// InputEquality<M>::equal: two operations ask the same thing (equal inputs). The search uses
// it for indeterminate operations only (no answer to tell them apart), which then have the same
// effect in every state and are interchangeable (linearization_search.h). Default: false.
//
// ReadOnly<M>::is: an operation with this input and answer leaves the state as it was in every
// state where it is legal (a read, a cas that answered that its compare failed). The search
// linearizes such an operation as soon as it is legal, without trying others first: it can
// always be moved to the front. Default: false.
//
// ReadTarget<M>: for a read-only operation (the "read"), which operations can bring the state
// to one where it is legal from any state (its "writers": a write of the value it read, a put
// its answer starts with), and whether other operations can from a given state
// (may_reach_without_writers: appending to a prefix of what a get returned). Once the read is
// illegal, cannot be reached without writers and none is left to linearize, the search knows
// the configuration is dead. Default (known = false): nothing is proved.
// ReadTarget<M>::legal_state: the one state in which a read-only operation with this input and
// answer is legal (a read of v: v), or nullopt when there may be several (a failed cas) or the
// model cannot tell. The search then tells legal from illegal by comparing interned state
// numbers instead of asking the model, and shares one list of writers among the reads of one
// legal state: for such reads, `writer` must depend on the read only through that state.
// Default: nullopt.
#pragma once

#include <optional>
#include <type_traits>
#include <variant>

#include "lockstep/model/etcd_kv.h"
#include "lockstep/model/kv_map.h"
#include "lockstep/model/mutex.h"
#include "lockstep/model/register.h"

namespace lockstep {

template <class M>
struct InputEquality {
  static bool equal(const typename M::Input&, const typename M::Input&) { return false; }
};

template <>
struct InputEquality<model::CasRegister> {
  static bool equal(const model::CasRegister::Input& a, const model::CasRegister::Input& b) {
    using K = model::CasRegister::Kind;
    if (a.kind != b.kind) return false;
    if (a.kind == K::read) return true;
    return a.value == b.value && (a.kind == K::write || a.expected == b.expected);
  }
};

template <>
struct InputEquality<model::KvKey> {
  static bool equal(const model::KvKey::Input& a, const model::KvKey::Input& b) {
    return a.kind == b.kind && a.value == b.value;
  }
};

template <>
struct InputEquality<model::OwnerMutex> {
  static bool equal(const model::OwnerMutex::Input& a, const model::OwnerMutex::Input& b) {
    return a.kind == b.kind && a.process == b.process;
  }
};

template <>
struct InputEquality<model::FencedMutex> {
  static bool equal(const model::FencedMutex::Input& a, const model::FencedMutex::Input& b) {
    return a.kind == b.kind && a.process == b.process && a.token == b.token;
  }
};

template <class M>
struct ReadOnly {
  static bool is(const typename M::Input&, const typename M::Output&) { return false; }
};

template <>
struct ReadOnly<model::CasRegister> {
  static bool is(const model::CasRegister::Input& in, const model::CasRegister::Output& out) {
    using K = model::CasRegister::Kind;
    if (in.kind == K::read) return true;
    // A cas that failed changes nothing; one that succeeded writes what it compared.
    return in.kind == K::cas && (!out.succeeded || in.expected == in.value);
  }
};

template <>
struct ReadOnly<model::KvKey> {
  static bool is(const model::KvKey::Input& in, const model::KvKey::Output&) {
    return in.kind == model::KvKey::Kind::get;
  }
};

template <>
struct ReadOnly<model::EtcdKv> {
  // A range neither writes nor advances the revision.
  static bool is(const model::EtcdKv::Input& in, const model::EtcdKv::Output&) {
    return std::holds_alternative<RangeRequest>(in);
  }
};

template <class M>
struct ReadTarget {
  static constexpr bool known = false;
  static bool writer(const typename M::Input&, const typename M::Output&,
                     const typename M::Input&, const typename M::Output*) {
    return true;
  }
  static bool may_reach_without_writers(const typename M::State&, const typename M::Input&,
                                        const typename M::Output&) {
    return true;
  }
  static std::optional<typename M::State> legal_state(const typename M::Input&,
                                                      const typename M::Output&) {
    return std::nullopt;
  }
};

// A read of v: only a write of v, or a cas to v that succeeded (or may have), sets v; nothing
// sets nil back. Other operations set other values.
template <>
struct ReadTarget<model::CasRegister> {
  static constexpr bool known = true;
  using R = model::CasRegister;
  static bool writer(const R::Input& read, const R::Output& seen, const R::Input& in,
                     const R::Output* out) {
    if (read.kind != R::Kind::read || !seen.value) return false;
    if (in.kind == R::Kind::write) return in.value == *seen.value;
    return in.kind == R::Kind::cas && in.value == *seen.value && (!out || out->succeeded);
  }
  static bool may_reach_without_writers(const R::State& s, const R::Input& read,
                                        const R::Output& seen) {
    // Only reads are answered here; a failed cas could become legal by any change of state.
    return read.kind != R::Kind::read || s == seen.value;
  }
  static std::optional<R::State> legal_state(const R::Input& read, const R::Output& seen) {
    if (read.kind != R::Kind::read) return std::nullopt;  // a failed cas: any other value
    return seen.value;
  }
};

// A get of V: appends only extend the value, so without a put it takes a prefix of V to get
// there; a put of a prefix of V may start it anew.
template <>
struct ReadTarget<model::KvKey> {
  static constexpr bool known = true;
  using K = model::KvKey;
  static bool writer(const K::Input& read, const K::Output& seen, const K::Input& in,
                     const K::Output*) {
    return read.kind == K::Kind::get && in.kind == K::Kind::put &&
           seen.value.compare(0, in.value.size(), in.value) == 0;
  }
  static bool may_reach_without_writers(const K::State& s, const K::Input& read,
                                        const K::Output& seen) {
    return read.kind != K::Kind::get || seen.value.compare(0, s.size(), s) == 0;
  }
  static std::optional<K::State> legal_state(const K::Input& read, const K::Output& seen) {
    if (read.kind != K::Kind::get) return std::nullopt;
    return seen.value;
  }
};

}  // namespace lockstep
