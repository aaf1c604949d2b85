// The resource check: the protected resource loses no acknowledged update, and with fencing
// its accepted tokens never go backwards.
//
// Contract: the resource's applied writes are read from the history's `truth` events, in the
// resource's own order: "resource-write" events with accepted=true (a simulated resource),
// or "key-put" events of the guarded data key whose value is "<value>@<base>@<token>" (data kept in
// etcd). Clients acknowledged their writes with `ok` completions of op "write" carrying the
// same `order`. Walking the applied writes in order from the counter's initial 0, a write
// whose base differs from the current value overwrote writes it never read: if one of those
// was acknowledged, an acknowledged update was lost. A write applied twice in a row (a
// duplicated message) counts once. Unacknowledged (indeterminate) lost
// writes are counted but are not a violation: nobody was told they happened.
#pragma once

#include <cstdint>
#include <string>

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"

namespace lockstep {

struct ResourceCheckOptions {
  bool fenced = false;           // the algorithm passes fencing tokens the resource enforces
  std::string guarded_data_key;  // non-empty: the data lives in etcd under this key
};

CheckResult check_resource(const History& history, const ResourceCheckOptions& options);

// The guarded data key's value, "<value>@<base>@<token>": written by the guarded resource
// (harness/resource.h), read back by it and by this check.
std::string format_guarded_value(std::int64_t value, std::int64_t base, std::int64_t token);
// False when `text` is not in that form.
bool parse_guarded_value(const std::string& text, std::int64_t& value, std::int64_t& base,
                         std::int64_t& token);

}  // namespace lockstep
