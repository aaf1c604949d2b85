#include "lockstep/real_etcd/convert.h"

namespace lockstep::real {

pb::RangeRequest to_pb(const RangeRequest& r) {
  pb::RangeRequest out;
  out.set_key(r.key);
  out.set_range_end(r.range_end);
  out.set_limit(r.limit);
  out.set_revision(r.revision);
  out.set_sort_order(static_cast<pb::RangeRequest::SortOrder>(r.sort_order));
  out.set_sort_target(static_cast<pb::RangeRequest::SortTarget>(r.sort_target));
  out.set_serializable(r.serializable);
  out.set_keys_only(r.keys_only);
  out.set_count_only(r.count_only);
  out.set_min_mod_revision(r.min_mod_revision);
  out.set_max_mod_revision(r.max_mod_revision);
  out.set_min_create_revision(r.min_create_revision);
  out.set_max_create_revision(r.max_create_revision);
  return out;
}

pb::PutRequest to_pb(const PutRequest& r) {
  pb::PutRequest out;
  out.set_key(r.key);
  out.set_value(r.value);
  out.set_lease(r.lease);
  out.set_prev_kv(r.prev_kv);
  out.set_ignore_value(r.ignore_value);
  out.set_ignore_lease(r.ignore_lease);
  return out;
}

pb::DeleteRangeRequest to_pb(const DeleteRangeRequest& r) {
  pb::DeleteRangeRequest out;
  out.set_key(r.key);
  out.set_range_end(r.range_end);
  out.set_prev_kv(r.prev_kv);
  return out;
}

namespace {

void fill_compare(const Compare& c, pb::Compare* out) {
  out->set_result(static_cast<pb::Compare::CompareResult>(c.result));
  out->set_target(static_cast<pb::Compare::CompareTarget>(c.target));
  out->set_key(c.key);
  out->set_range_end(c.range_end);
  // Only the member of target_union named by `target` is sent, as etcd's client does.
  switch (c.target) {
    case CompareTarget::version: out->set_version(c.version); break;
    case CompareTarget::create: out->set_create_revision(c.create_revision); break;
    case CompareTarget::mod: out->set_mod_revision(c.mod_revision); break;
    case CompareTarget::value: out->set_value(c.value); break;
    case CompareTarget::lease: out->set_lease(c.lease); break;
  }
}

void fill_op(const RequestOp& op, pb::RequestOp* out) {
  if (auto* r = std::get_if<RangeRequest>(&op.request)) {
    *out->mutable_request_range() = to_pb(*r);
  } else if (auto* p = std::get_if<PutRequest>(&op.request)) {
    *out->mutable_request_put() = to_pb(*p);
  } else if (auto* d = std::get_if<DeleteRangeRequest>(&op.request)) {
    *out->mutable_request_delete_range() = to_pb(*d);
  } else {
    const auto& t = std::get<std::shared_ptr<TxnRequest>>(op.request);
    *out->mutable_request_txn() = t ? to_pb(*t) : pb::TxnRequest();
  }
}

ResponseOp op_from_pb(const pb::ResponseOp& op) {
  ResponseOp out;
  switch (op.response_case()) {
    case pb::ResponseOp::kResponseRange: out.response = from_pb(op.response_range()); break;
    case pb::ResponseOp::kResponsePut: out.response = from_pb(op.response_put()); break;
    case pb::ResponseOp::kResponseDeleteRange:
      out.response = from_pb(op.response_delete_range());
      break;
    case pb::ResponseOp::kResponseTxn:
      out.response = std::make_shared<TxnResponse>(from_pb(op.response_txn()));
      break;
    case pb::ResponseOp::RESPONSE_NOT_SET: break;  // leaves an empty RangeResponse
  }
  return out;
}

}  // namespace

pb::TxnRequest to_pb(const TxnRequest& r) {
  pb::TxnRequest out;
  for (const auto& c : r.compare) fill_compare(c, out.add_compare());
  for (const auto& op : r.success) fill_op(op, out.add_success());
  for (const auto& op : r.failure) fill_op(op, out.add_failure());
  return out;
}

pb::CompactionRequest to_pb(const CompactionRequest& r) {
  pb::CompactionRequest out;
  out.set_revision(r.revision);
  out.set_physical(r.physical);
  return out;
}

pb::LeaseGrantRequest to_pb(const LeaseGrantRequest& r) {
  pb::LeaseGrantRequest out;
  out.set_ttl(r.ttl_seconds);
  out.set_id(r.id);
  return out;
}

pb::LeaseRevokeRequest to_pb(const LeaseRevokeRequest& r) {
  pb::LeaseRevokeRequest out;
  out.set_id(r.id);
  return out;
}

pb::LeaseKeepAliveRequest to_pb(const LeaseKeepAliveRequest& r) {
  pb::LeaseKeepAliveRequest out;
  out.set_id(r.id);
  return out;
}

pb::LeaseTimeToLiveRequest to_pb(const LeaseTimeToLiveRequest& r) {
  pb::LeaseTimeToLiveRequest out;
  out.set_id(r.id);
  out.set_keys(r.keys);
  return out;
}

::v3lockpb::LockRequest to_pb(const LockRequest& r) {
  ::v3lockpb::LockRequest out;
  out.set_name(r.name);
  out.set_lease(r.lease);
  return out;
}

::v3lockpb::UnlockRequest to_pb(const UnlockRequest& r) {
  ::v3lockpb::UnlockRequest out;
  out.set_key(r.key);
  return out;
}

pb::WatchCreateRequest to_pb(const WatchCreateRequest& r) {
  pb::WatchCreateRequest out;
  out.set_key(r.key);
  out.set_range_end(r.range_end);
  out.set_start_revision(r.start_revision);
  out.set_progress_notify(r.progress_notify);
  for (auto f : r.filters) out.add_filters(static_cast<pb::WatchCreateRequest::FilterType>(f));
  out.set_prev_kv(r.prev_kv);
  return out;
}

KeyValue from_pb(const mvccpb::KeyValue& kv) {
  KeyValue out;
  out.key = kv.key();
  out.create_revision = kv.create_revision();
  out.mod_revision = kv.mod_revision();
  out.version = kv.version();
  out.value = kv.value();
  out.lease = kv.lease();
  return out;
}

ResponseHeader from_pb(const pb::ResponseHeader& h) {
  ResponseHeader out;
  out.cluster_id = h.cluster_id();
  out.member_id = h.member_id();
  out.revision = h.revision();
  out.raft_term = h.raft_term();
  return out;
}

RangeResponse from_pb(const pb::RangeResponse& r) {
  RangeResponse out;
  out.header = from_pb(r.header());
  out.kvs.reserve(static_cast<std::size_t>(r.kvs_size()));
  for (const auto& kv : r.kvs()) out.kvs.push_back(from_pb(kv));
  out.more = r.more();
  out.count = r.count();
  return out;
}

PutResponse from_pb(const pb::PutResponse& r) {
  PutResponse out;
  out.header = from_pb(r.header());
  if (r.has_prev_kv()) out.prev_kv.push_back(from_pb(r.prev_kv()));
  return out;
}

DeleteRangeResponse from_pb(const pb::DeleteRangeResponse& r) {
  DeleteRangeResponse out;
  out.header = from_pb(r.header());
  out.deleted = r.deleted();
  for (const auto& kv : r.prev_kvs()) out.prev_kvs.push_back(from_pb(kv));
  return out;
}

TxnResponse from_pb(const pb::TxnResponse& r) {
  TxnResponse out;
  out.header = from_pb(r.header());
  out.succeeded = r.succeeded();
  for (const auto& op : r.responses()) out.responses.push_back(op_from_pb(op));
  return out;
}

CompactionResponse from_pb(const pb::CompactionResponse& r) {
  CompactionResponse out;
  out.header = from_pb(r.header());
  return out;
}

LeaseGrantResponse from_pb(const pb::LeaseGrantResponse& r) {
  LeaseGrantResponse out;
  out.header = from_pb(r.header());
  out.id = r.id();
  out.ttl_seconds = r.ttl();
  out.error = r.error();
  return out;
}

LeaseRevokeResponse from_pb(const pb::LeaseRevokeResponse& r) {
  LeaseRevokeResponse out;
  out.header = from_pb(r.header());
  return out;
}

LeaseKeepAliveResponse from_pb(const pb::LeaseKeepAliveResponse& r) {
  LeaseKeepAliveResponse out;
  out.header = from_pb(r.header());
  out.id = r.id();
  out.ttl_seconds = r.ttl();
  return out;
}

LeaseTimeToLiveResponse from_pb(const pb::LeaseTimeToLiveResponse& r) {
  LeaseTimeToLiveResponse out;
  out.header = from_pb(r.header());
  out.id = r.id();
  out.ttl_seconds = r.ttl();
  out.granted_ttl_seconds = r.grantedttl();
  for (const auto& k : r.keys()) out.keys.push_back(k);
  return out;
}

LockResponse from_pb(const ::v3lockpb::LockResponse& r) {
  LockResponse out;
  out.header = from_pb(r.header());
  out.key = r.key();
  return out;
}

UnlockResponse from_pb(const ::v3lockpb::UnlockResponse& r) {
  UnlockResponse out;
  out.header = from_pb(r.header());
  return out;
}

WatchResponse from_pb(const pb::WatchResponse& r) {
  WatchResponse out;
  out.header = from_pb(r.header());
  out.watch_id = r.watch_id();
  out.created = r.created();
  out.canceled = r.canceled();
  out.compact_revision = r.compact_revision();
  out.cancel_reason = r.cancel_reason();
  for (const auto& e : r.events()) {
    Event ev;
    ev.type = e.type() == mvccpb::Event::DELETE ? EventType::del : EventType::put;
    ev.kv = from_pb(e.kv());
    if (e.has_prev_kv()) ev.prev_kv.push_back(from_pb(e.prev_kv()));
    out.events.push_back(std::move(ev));
  }
  return out;
}

}  // namespace lockstep::real
