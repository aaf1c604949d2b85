// RealClientControl: what a real run does to one of its clients, whichever kind it is: an
// in-process C++ lock (RealClient) or an external process speaking the client protocol
// (ExternalClient). The runner starts and stops clients through it and the fault injector
// pauses, crashes and restarts them.
//
// Contract: every call is thread-safe and returns once it has taken effect (a pause is in
// force on return), or false when the client cannot do it (its thread has ended, or the
// fault does not apply to this kind of client).
#pragma once

#include <exception>
#include <string>

#include "lockstep/kv/time.h"

namespace lockstep {

class RealClientControl {
 public:
  virtual ~RealClientControl() = default;

  virtual const std::string& name() const = 0;
  virtual bool start_workload() = 0;
  virtual bool pause() = 0;
  virtual bool resume() = 0;
  virtual bool crash() = 0;
  virtual bool restart() = 0;
  virtual bool jump_clock(Duration delta, bool monotonic, bool wall) = 0;
  // rate: local seconds per real second (1.0 = nominal).
  virtual bool set_clock_rate(double rate, bool monotonic, bool wall) = 0;
  virtual bool set_lease_drop(bool dropping) = 0;
  // Asks the workload to finish its current cycle and start no other.
  virtual bool request_stop() = 0;
  // True when the workload has ended (or the client's thread has).
  virtual bool workload_done() = 0;
  // Set when the client ended the run: a bug in an in-process lock (an exception from a
  // task), or an external client that broke the protocol (BadClientError).
  virtual std::exception_ptr failure() = 0;
};

}  // namespace lockstep
