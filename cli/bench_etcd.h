// `lockstep bench --backend etcd`: lock+unlock cycles on a local real etcd, lockstep's
// etcd-mutex against etcd's own Go Mutex (the go-mutex external client, clients/), uncontended
// and with three clients contending, with their ratios. See real_run/lock_bench.h.
#pragma once

#include <string>

namespace lockstep::cli {

struct EtcdBenchArgs {
  double seconds = 5;     // of load per case
  std::string go_client;  // the go-mutex adapter; empty: build/clients/go-mutex beside lockstep
  std::string etcd_bin;
  bool json = false;
};

int bench_etcd_main(const EtcdBenchArgs& args);

}  // namespace lockstep::cli
