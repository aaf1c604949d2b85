// libFuzzer target: the EDN op-map importer (checker/porcupine_import.h).
#include <sstream>
#include <string>

#include "lockstep/checker/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  auto loaded = lockstep::load_history(in, lockstep::HistoryFormat::porcupine_kv);
  if (loaded.loaded) lockstep::fuzz::check_downstream(*loaded.loaded);
  return 0;
}
