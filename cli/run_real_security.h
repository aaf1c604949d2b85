// `lockstep run --backend etcd` against a secured cluster: run_real_backend() with the TLS
// and login options (--cacert, --cert, --key, --user; etcdctl's names). The options are
// checked by expand_real_security() (real_run/run_request.h); a bad one exits 2 with a
// message naming it. The password of `--user NAME` comes from LOCKSTEP_ETCD_PASSWORD.
// Every client of the run, the runner's own included, connects with them.
#pragma once

#include "lockstep/cli/run_real.h"
#include "lockstep/real_run/run_request.h"

namespace lockstep::cli {

int run_real_backend(const RealRunArgs& args, const RealSecurityArgs& security);

}  // namespace lockstep::cli
