#include "lockstep/sim/etcd_config.h"

namespace lockstep::sim {

const char* etcd_version_name(EtcdVersion version) {
  return version == EtcdVersion::v3_5_13 ? "3.5.13" : "3.4.23";
}

bool parse_etcd_version(const std::string& name, EtcdVersion& out) {
  for (const EtcdVersion v : {EtcdVersion::v3_4_23, EtcdVersion::v3_5_13}) {
    if (name == etcd_version_name(v)) {
      out = v;
      return true;
    }
  }
  return false;
}

}  // namespace lockstep::sim
