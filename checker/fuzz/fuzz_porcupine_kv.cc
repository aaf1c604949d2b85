// libFuzzer target: the EDN op-map importer (checker/porcupine_import.h), both its routes. The
// History route's result goes on through the rest of `lockstep check`; the direct route (the
// kv model's partitions, made without a History) must give exactly what the History route
// gives: the same error message, or the same partitions, operation for operation.
#include <cstdlib>
#include <sstream>
#include <string>

#include "lockstep/checker/fuzz/fuzz_common.h"
#include "lockstep/checker/porcupine_import.h"

namespace {

void same_or_abort(const lockstep::PartitionsResult& direct, const lockstep::PartitionsResult& via) {
  if (direct.error.has_value() != via.error.has_value()) std::abort();
  if (direct.error) {
    if (direct.error->line != via.error->line || direct.error->message != via.error->message)
      std::abort();
    return;
  }
  if (direct.partitions.size() != via.partitions.size() ||
      direct.ignored_events != via.ignored_events || direct.unchecked_ops != via.unchecked_ops)
    std::abort();
  for (std::size_t p = 0; p < direct.partitions.size(); ++p) {
    const auto& x = *direct.partitions[p].model;
    const auto& y = *via.partitions[p].model;
    if (direct.partitions[p].name != via.partitions[p].name || x.size() != y.size()) std::abort();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x.describe_op(i) != y.describe_op(i) || x.interval(i).call != y.interval(i).call ||
          x.interval(i).ret != y.interval(i).ret)
        std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  auto loaded = lockstep::load_history(in, lockstep::HistoryFormat::porcupine_kv);
  if (loaded.loaded) lockstep::fuzz::check_downstream(*loaded.loaded);

  const lockstep::ImportResult imported = lockstep::import_porcupine_kv(std::string_view(text));
  lockstep::PartitionsResult via_history;
  if (imported.history)
    via_history = lockstep::history_partitions(*imported.history, lockstep::ModelKind::kv,
                                               imported.event_lines);
  else
    via_history.error = imported.error;
  same_or_abort(lockstep::import_porcupine_kv_partitions(text), via_history);
  return 0;
}
