// One program for etcd's lock service (v3lock), run by the simulator's tests and by the tests
// on a real etcd: what it asserts is what the simulated service must share with etcd 3.4.23.
//
//   1. Lock(name, lease A) is granted at once, with the key `name/<A hex>` under lease A.
//   2. Lock(name, lease B) waits while A holds, and is granted once Unlock(A's key) deletes it.
//   3. Lock(name, lease C) while B holds ends at the caller's per-call deadline, and the
//      server's Mutex, its context ended, deletes C's key (its clean-up).
// Catch2's macros may evaluate their argument more than once under g++ 12: nothing here is
// co_awaited inside one.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "lockstep/kv/node_context.h"

namespace lockstep::testing {

inline std::string lock_key_of(const std::string& name, LeaseId lease) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(lease));
  return name + "/" + hex;
}

inline Task<void> lock_into(KvClient* kv, std::string name, LeaseId lease, bool* done,
                            std::string* key) {
  LockRequest request;
  request.name = std::move(name);
  request.lease = lease;
  Result<LockResponse> r = co_await kv->lock(std::move(request));
  if (r.ok()) *key = r->key;
  *done = true;
}

inline Task<bool> key_exists(KvClient* kv, std::string key) {
  RangeRequest get;
  get.key = std::move(key);
  Result<RangeResponse> r = co_await kv->range(std::move(get));
  REQUIRE(r.ok());
  co_return !r->kvs.empty();
}

// Grants `count` leases of 60 s into `out`.
inline Task<void> grant_leases(KvClient* kv, LeaseId* out, int count) {
  for (int i = 0; i < count; ++i) {
    Result<LeaseGrantResponse> granted = co_await kv->lease_grant(LeaseGrantRequest{60, 0});
    REQUIRE(granted.ok());
    out[i] = granted->id;
  }
}

// `call_deadline`: the backend's per-call deadline (a Lock longer than it is given up).
inline Task<void> lock_service_program(NodeContext* node, std::string prefix, Duration call_deadline) {
  KvClient& kv = node->kv();
  const std::string name = prefix + "m";
  LeaseId leases[3] = {0, 0, 0};
  co_await grant_leases(&kv, leases, 3);

  // 1. Granted at once.
  LockRequest first_request;
  first_request.name = name;
  first_request.lease = leases[0];
  Result<LockResponse> first = co_await kv.lock(std::move(first_request));
  REQUIRE(first.ok());
  REQUIRE(first->key == lock_key_of(name, leases[0]));
  RangeRequest own;
  own.key = first->key;
  Result<RangeResponse> held = co_await kv.range(std::move(own));
  REQUIRE(held.ok());
  REQUIRE(held->kvs.size() == 1);
  REQUIRE(held->kvs[0].lease == leases[0]);

  // 2. The second waits for the first's Unlock.
  bool second_done = false;
  std::string second_key;
  SpawnHandle waiter =
      node->spawn(lock_into(&kv, name, leases[1], &second_done, &second_key), "second lock");
  co_await node->sleep_for(milliseconds(500));
  REQUIRE_FALSE(second_done);
  UnlockRequest unlock;
  unlock.key = first->key;
  Result<UnlockResponse> unlocked = co_await kv.unlock(std::move(unlock));
  REQUIRE(unlocked.ok());
  const bool first_key_left = co_await key_exists(&kv, first->key);
  REQUIRE_FALSE(first_key_left);
  for (int i = 0; i < 40 && !second_done; ++i) co_await node->sleep_for(milliseconds(50));
  REQUIRE(second_done);
  REQUIRE(second_key == lock_key_of(name, leases[1]));

  // 3. A third caller gives up at its deadline; the server's clean-up deletes its key.
  const MonoTime sent = node->monotonic_now();
  LockRequest third_request;
  third_request.name = name;
  third_request.lease = leases[2];
  Result<LockResponse> third = co_await kv.lock(std::move(third_request));
  REQUIRE_FALSE(third.ok());
  REQUIRE(third.error().code == ErrorCode::timeout);
  REQUIRE(node->monotonic_now() - sent >= call_deadline);
  bool third_key_left = true;
  for (int i = 0; i < 40 && third_key_left; ++i) {
    third_key_left = co_await key_exists(&kv, lock_key_of(name, leases[2]));
    if (third_key_left) co_await node->sleep_for(milliseconds(50));
  }
  REQUIRE_FALSE(third_key_left);
  const bool second_key_left = co_await key_exists(&kv, second_key);
  REQUIRE(second_key_left);
}

}  // namespace lockstep::testing
