// Mechanical translation between lockstep's plain etcd types (kv/types.h) and the generated
// protobuf messages. Private to real_etcd/. Field for field; no validation (the server does
// that, and its refusals are what the tests compare).
#pragma once

#include "etcdpb/rpc.pb.h"
#include "etcdpb/v3lock.pb.h"
#include "lockstep/kv/types.h"

namespace lockstep::real {

namespace pb = ::etcdserverpb;

pb::RangeRequest to_pb(const RangeRequest& r);
pb::PutRequest to_pb(const PutRequest& r);
pb::DeleteRangeRequest to_pb(const DeleteRangeRequest& r);
pb::TxnRequest to_pb(const TxnRequest& r);
pb::CompactionRequest to_pb(const CompactionRequest& r);
pb::LeaseGrantRequest to_pb(const LeaseGrantRequest& r);
pb::LeaseRevokeRequest to_pb(const LeaseRevokeRequest& r);
pb::LeaseKeepAliveRequest to_pb(const LeaseKeepAliveRequest& r);
pb::LeaseTimeToLiveRequest to_pb(const LeaseTimeToLiveRequest& r);
pb::WatchCreateRequest to_pb(const WatchCreateRequest& r);
::v3lockpb::LockRequest to_pb(const LockRequest& r);
::v3lockpb::UnlockRequest to_pb(const UnlockRequest& r);

KeyValue from_pb(const mvccpb::KeyValue& kv);
ResponseHeader from_pb(const pb::ResponseHeader& h);
RangeResponse from_pb(const pb::RangeResponse& r);
PutResponse from_pb(const pb::PutResponse& r);
DeleteRangeResponse from_pb(const pb::DeleteRangeResponse& r);
TxnResponse from_pb(const pb::TxnResponse& r);
CompactionResponse from_pb(const pb::CompactionResponse& r);
LeaseGrantResponse from_pb(const pb::LeaseGrantResponse& r);
LeaseRevokeResponse from_pb(const pb::LeaseRevokeResponse& r);
LeaseKeepAliveResponse from_pb(const pb::LeaseKeepAliveResponse& r);
LeaseTimeToLiveResponse from_pb(const pb::LeaseTimeToLiveResponse& r);
WatchResponse from_pb(const pb::WatchResponse& r);
LockResponse from_pb(const ::v3lockpb::LockResponse& r);
UnlockResponse from_pb(const ::v3lockpb::UnlockResponse& r);

}  // namespace lockstep::real
