// PrefixedKvClient: isolates a run inside a key prefix of a shared etcd.
//
// Contract:
//   - Every key and range_end in a request (ranges, puts, deletes, txn compares and nested
//     ops, watches) is moved under `prefix`; every key in a response (kvs, prev_kv(s), watch
//     events, lease keys, a lock's key) has it stripped. A lock's name and an unlock's key
//     move under it too. So the wrapped client sees a private keyspace.
//   - range_end "\0" ("every key >= key") becomes prefix_range_end(prefix), so even
//     "all keys" stays inside the prefix. Ends are moved the same way as keys.
//   - An empty key (for which etcd answers "key is not provided") is refused here with the
//     same definite empty_key error, because prefix + "" would be a valid key.
//   - Not isolated, by nature: revisions (store-wide), lease ids (a run could revoke another's
//     lease by id) and compaction (store-wide). A key from the server outside the prefix
//     (only possible through leases shared with another run) is passed on unchanged.
//   - The prefix must be non-empty and must not be all 0xff bytes.
#pragma once

#include <memory>
#include <string>

#include "lockstep/kv/kv_client.h"

namespace lockstep::real {

class PrefixedKvClient final : public KvClient {
 public:
  PrefixedKvClient(KvClient& inner, std::string prefix);

  const std::string& prefix() const { return prefix_; }

  Task<Result<RangeResponse>> range(RangeRequest request) override;
  Task<Result<PutResponse>> put(PutRequest request) override;
  Task<Result<DeleteRangeResponse>> delete_range(DeleteRangeRequest request) override;
  Task<Result<TxnResponse>> txn(TxnRequest request) override;
  Task<Result<CompactionResponse>> compact(CompactionRequest request) override;
  Task<Result<LeaseGrantResponse>> lease_grant(LeaseGrantRequest request) override;
  Task<Result<LeaseRevokeResponse>> lease_revoke(LeaseRevokeRequest request) override;
  Task<Result<LeaseKeepAliveResponse>> lease_keep_alive(LeaseKeepAliveRequest request) override;
  Task<Result<LeaseTimeToLiveResponse>> lease_time_to_live(
      LeaseTimeToLiveRequest request) override;
  Task<Result<LockResponse>> lock(LockRequest request) override;
  Task<Result<UnlockResponse>> unlock(UnlockRequest request) override;
  Task<Result<std::unique_ptr<WatchStream>>> watch(WatchCreateRequest request) override;

  // The translations, public for tests.
  std::string add_to_key(const std::string& key) const { return prefix_ + key; }
  std::string add_to_range_end(const std::string& range_end) const;
  std::string strip(const std::string& key) const;

 private:
  Task<Result<RangeResponse>> do_range(RangeRequest request);
  Task<Result<PutResponse>> do_put(PutRequest request);
  Task<Result<DeleteRangeResponse>> do_delete_range(DeleteRangeRequest request);
  Task<Result<TxnResponse>> do_txn(TxnRequest request);
  Task<Result<LeaseTimeToLiveResponse>> do_time_to_live(LeaseTimeToLiveRequest request);
  Task<Result<std::unique_ptr<WatchStream>>> do_watch(WatchCreateRequest request);
  Task<Result<LockResponse>> do_lock(LockRequest request);
  Task<Result<UnlockResponse>> do_unlock(UnlockRequest request);

  // Rewrites requests in place; false if a key was empty where etcd requires one.
  bool move_in(RangeRequest& r) const;
  bool move_in(PutRequest& r) const;
  bool move_in(DeleteRangeRequest& r) const;
  bool move_in(TxnRequest& r) const;
  void move_out(KeyValue& kv) const;
  void move_out(RangeResponse& r) const;
  void move_out(PutResponse& r) const;
  void move_out(DeleteRangeResponse& r) const;
  void move_out(TxnResponse& r) const;

  friend class PrefixedWatchStream;
  KvClient& inner_;
  std::string prefix_;
  std::string prefix_end_;
};

}  // namespace lockstep::real
