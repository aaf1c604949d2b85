// The args of the history's "key-put" and "key-delete" truth events (docs/history-format.md):
// what the store did to a key, as the simulator reports each change it applies and as the
// real backend's truth watcher sees it through a watch. One encoding for both.
#pragma once

#include <nlohmann/json.hpp>

#include "lockstep/kv/types.h"

namespace lockstep {

// "key-put" or "key-delete".
const char* key_event_truth_op(const Event& event);

// {key, revision} and, for a put, {create_revision, lease, value}; keys and values in the
// history's escaping (escape_bytes). `extra` members (the simulator's cause and lease_expired)
// come along. Built on the object's map directly: a recorded run makes one per change, and
// nlohmann's operator[] costs several times more per member.
nlohmann::json key_event_truth_args(const Event& event, nlohmann::json::object_t extra = {});

}  // namespace lockstep
