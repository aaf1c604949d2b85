#include "lockstep/harness/sim_resource.h"

namespace lockstep {

SimResourceService::SimResourceService(sim::World& world, sim::Network&, bool fenced)
    : world_(world), pid_(world.add_process("resource")), counter_(fenced) {}

SimResourceService::Reply SimResourceService::serve(sim::ProcessId client, bool is_write,
                                                    std::int64_t base, std::int64_t value,
                                                    std::int64_t token) {
  const Reply reply = counter_.serve(is_write, base, value, token);
  world_.record_truth("resource", CounterResource::truth_op(is_write),
                      counter_.truth_args(world_.process(client).name, is_write, base, value,
                                          token, reply));
  return reply;
}

SimResourceClient::SimResourceClient(sim::World& world, sim::Network& network,
                                     SimResourceService& service, sim::ProcessId client,
                                     Duration request_timeout)
    : world_(world),
      network_(network),
      service_(service),
      client_(client),
      request_timeout_(request_timeout) {}

Task<Result<SimResourceService::Reply>> SimResourceClient::call(bool is_write, std::int64_t base,
                                                                std::int64_t value,
                                                                std::int64_t token) {
  auto slot = sim::make_local<sim::Slot<Result<SimResourceService::Reply>>>();
  sim::World* world = &world_;
  sim::Network* network = &network_;
  SimResourceService* service = &service_;
  const sim::ProcessId client = client_;
  network_.send(client_, service_.pid(), [=] {
    SimResourceService::Reply reply = service->serve(client, is_write, base, value, token);
    network->send(service->pid(), client, [=] {
      if (slot->value) return;  // timed out already (or a duplicate)
      slot->value = reply;
      sim::fire_wake(*world, client, sim::wake_of(slot));
    });
  });
  world_.schedule_after_local(request_timeout_, client_, [=] {
    if (slot->value) return;
    slot->value = Error(ErrorCode::timeout, "the resource did not answer");
    sim::fire_wake(*world, client, sim::wake_of(slot));
  });
  co_await sim::WakeAwaiter(sim::wake_of(slot));
  co_return std::move(*slot->value);
}

Task<Result<ResourceRead>> SimResourceClient::read(std::int64_t token) {
  Result<SimResourceService::Reply> r = co_await call(false, 0, 0, token);
  if (!r.ok()) co_return r.error();
  if (!r.value().accepted) co_return Error(ErrorCode::rejected, r.value().reason);
  co_return ResourceRead{r.value().value};
}

Task<Result<ResourceWrite>> SimResourceClient::write(std::int64_t base, std::int64_t value,
                                                     std::int64_t token) {
  Result<SimResourceService::Reply> r = co_await call(true, base, value, token);
  if (!r.ok()) co_return r.error();
  if (!r.value().accepted) co_return Error(ErrorCode::rejected, r.value().reason);
  co_return ResourceWrite{r.value().order};
}

}  // namespace lockstep
