// World: the deterministic single-threaded executor of one simulated run.
//
// Contract:
//   - Time is virtual: events run in (true time, sequence number) order; when nothing is
//     ready, time jumps to the next event. Nothing here reads a real clock, starts a thread
//     or draws unseeded randomness; every random stream derives from the root seed.
//   - Every event belongs to a process. A paused process's events are held (its timers fire
//     late, its messages wait) and run in order when it resumes. A crashed process's pending
//     events are dropped: each event remembers the incarnation it was scheduled for.
//   - Coroutines are resumed only through events (see Wake), so pause and crash apply to
//     every task uniformly.
// Like TigerBeetle's simulator, the world checks its own invariants with assertions.
#pragma once

#include <cassert>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/kv/rng.h"
#include "lockstep/kv/time.h"
#include "lockstep/sim/clock.h"
#include "lockstep/sim/event_fn.h"

namespace lockstep::sim {

using ProcessId = int;
constexpr ProcessId kWorldProcess = 0;  // the world itself: faults, scans of the harness

struct Process {
  ProcessId id = 0;
  std::string name;
  ProcessClock monotonic;
  ProcessClock wall;
  bool paused = false;
  bool crashed = false;
  std::uint64_t incarnation = 0;
  // Events that came due while paused, in the order they came due.
  std::vector<EventFn> held;
};

// What the world reports to whoever records the history. Kept to facts the simulator knows.
class WorldObserver {
 public:
  virtual ~WorldObserver() = default;
  // A fault started or ended, or a process changed state (pause, crash, restart).
  virtual void on_fault(TrueTime now, const std::string& process, const std::string& op,
                        nlohmann::json args) = 0;
  // A fact about the truth of the system no client saw (a key created in the store...).
  virtual void on_truth(TrueTime now, const std::string& process, const std::string& op,
                        nlohmann::json args) = 0;
  // A free-form line from a process (NodeContext::trace).
  virtual void on_trace(TrueTime now, const std::string& process, Duration local_monotonic,
                        const std::string& message) = 0;
  // What a client's KV endpoint did that its lock operations cannot say: a call sent, its
  // end (reply, error, timeout), a switch of member. Recorded as `trace` events with `op`.
  virtual void on_client_event(TrueTime now, const std::string& process,
                               Duration local_monotonic, const std::string& op,
                               nlohmann::json args) = 0;
};

class World {
 public:
  explicit World(std::uint64_t seed);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  std::uint64_t seed() const { return seed_; }
  TrueTime now() const { return now_; }
  // An independent random stream for a named consumer (see Rng::fork).
  Rng rng_for(std::string_view label) const { return root_rng_.fork(label); }

  // ---- processes ----
  ProcessId add_process(std::string name);
  Process& process(ProcessId id);
  const Process& process(ProcessId id) const;
  std::size_t process_count() const { return processes_.size(); }
  // Inline: read on every request, timer and reply.
  Duration local_monotonic(ProcessId id) const { return process(id).monotonic.local_at(now_); }
  Duration local_wall(ProcessId id) const { return process(id).wall.local_at(now_); }

  void pause(ProcessId id);
  void resume(ProcessId id);
  // Drops every pending event of the process; the owner of its tasks destroys them through
  // the crash hook. restart() starts a new incarnation and calls the restart hook.
  void crash(ProcessId id);
  void restart(ProcessId id);
  void set_crash_hook(ProcessId id, std::function<void()> hook);
  void set_restart_hook(ProcessId id, std::function<void()> hook);
  // Called on every crash, after the process's own hook (the network resets its links).
  void add_crash_listener(std::function<void(ProcessId)> listener) {
    crash_listeners_.push_back(std::move(listener));
  }

  // ---- events ----
  // Names one scheduled event, for cancel(). Stays valid (and harmless) after the event ran.
  struct EventId {
    std::uint32_t slot = 0;
    std::uint64_t seq = ~std::uint64_t{0};
  };
  // Runs `fn` (any move-only void() callable, or an EventFn) on behalf of `owner` at true time
  // `at` (not before now).
  template <typename F>
  EventId schedule_at(TrueTime at, ProcessId owner, F&& fn) {
    const std::uint32_t slot = reserve_slot(owner);
    Slot& s = slot_at(slot);
    // Built in its slot, where it stays until it runs: an event's callable is never moved.
    try {
      s.fn.~EventFn();
      ::new (static_cast<void*>(&s.fn)) EventFn(std::forward<F>(fn));
    } catch (...) {
      ::new (static_cast<void*>(&s.fn)) EventFn();
      release_slot(slot);
      throw;
    }
    return enqueue(at, slot);
  }
  template <typename F>
  EventId schedule_after(Duration delay, ProcessId owner, F&& fn) {
    return schedule_at(now_ + delay, owner, std::forward<F>(fn));
  }
  // Runs `fn` after `local_delay` on the owner's monotonic clock.
  template <typename F>
  EventId schedule_after_local(Duration local_delay, ProcessId owner, F&& fn) {
    return schedule_at_local(local_monotonic(owner) + local_delay, owner, std::forward<F>(fn));
  }
  // Runs `fn` when the owner's monotonic clock reads `local_due` (now if it already does). A
  // timer on a process's clock: a later change of that clock's rate, or a jump, moves it, as
  // a real timer fires when its own clock reaches the deadline (set_monotonic_rate).
  template <typename F>
  EventId schedule_at_local(Duration local_due, ProcessId owner, F&& fn) {
    const Duration left = local_due - local_monotonic(owner);
    const EventId id = schedule_at(now_ + process(owner).monotonic.true_duration_for(left), owner,
                                   std::forward<F>(fn));
    slot_at(id.slot).local_due_ns = local_due.count();
    return id;
  }
  // Changes a process's monotonic clock (a `clock` fault) and moves its pending timers to
  // when the clock will reach their deadlines.
  void set_monotonic_rate(ProcessId id, std::int64_t rate_ppm);
  void jump_monotonic(ProcessId id, Duration by);
  // Drops a pending event (its function is destroyed now). A no-op when it already ran, was
  // dropped or was cancelled. Why: most timers (request timeouts) are overtaken by a reply;
  // dropping them keeps the queue small.
  void cancel(EventId id);
  template <typename F>
  void post(ProcessId owner, F&& fn) {
    schedule_at(now_, owner, std::forward<F>(fn));
  }

  // Runs events until none is left at or before `until`; then time is `until`.
  void run_until(TrueTime until);
  // Runs one event; false when none is left.
  bool step();
  bool idle() const { return live_events_ == 0; }
  std::uint64_t events_run() const { return events_run_; }

  // The process on whose behalf the current event runs.
  ProcessId current_process() const { return current_; }
  // Whether the current event came to its process while it could not read it: it was held
  // by a pause, or by a cut link (the network sets this while it delivers what a healed cut
  // held). What came in such a batch is read together before any of it is acted on: a
  // gRPC server reads a cancellation that arrived with its request before it starts it.
  bool running_held() const { return running_held_; }
  void set_running_held(bool held) { running_held_ = held; }

  // ---- observation ----
  void set_observer(WorldObserver* observer) { observer_ = observer; }
  WorldObserver* observer() const { return observer_; }
  // `args` by value: the history keeps it (callers hand over a temporary, which is moved).
  void record_fault(const std::string& process, const std::string& op, nlohmann::json args);
  void record_truth(const std::string& process, const std::string& op, nlohmann::json args);
  void record_client_event(ProcessId process, const std::string& op, nlohmann::json args);

 private:
  // The queue is a binary heap of small keys (a 4-ary one measured slower: the queue is
  // shallow and its pops compare more); the events themselves stay put in slots, built there
  // and run there. Why: heap operations move their elements, and a key is 16 bytes where a
  // slot with its EventFn is 80.
  //
  // Cancelling is lazy: the slot is freed at once and its key stays where it is, stale, until
  // it reaches the front, where a key whose sequence number no longer matches its slot's is
  // dropped. Why: keeping every key's heap position up to date cost a write per key moved.
  // When stale keys are more than half the heap (timers beyond the far ring's reach that are
  // cancelled, for instance), the heap is rebuilt without them.
  //
  // Far events (timers a bucket or more beyond the drained one: request timeouts, deadlines,
  // election timers) wait in a ring of time buckets and enter the heap only when time nears
  // them; most are cancelled before then, so the heap keeps messages in flight and near
  // timers, and few stale keys. Order is unchanged: a key keeps its (time, seq) wherever it is.

  // A key is 16 bytes, four to a cache line: the sequence number (ties in time run in
  // scheduling order) and the slot share one word, the sequence in the high bits so that it
  // decides the order.
  static constexpr int kSlotBits = 24;
  struct Key {
    std::int64_t at_ns;
    std::uint64_t seq_slot;
    std::uint64_t seq() const { return seq_slot >> kSlotBits; }
    std::uint32_t slot() const {
      return static_cast<std::uint32_t>(seq_slot & ((std::uint64_t{1} << kSlotBits) - 1));
    }
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      return a.at_ns != b.at_ns ? a.at_ns > b.at_ns : a.seq_slot > b.seq_slot;
    }
  };
  struct Slot {
    std::uint64_t seq = ~std::uint64_t{0};  // of the event it holds; kFree or kRunning else
    ProcessId owner = kWorldProcess;
    std::uint64_t incarnation = 0;
    bool far = false;  // its key waits in far_ring_, not in the heap
    bool held = false;  // re-queued by resume(): it came while its process was paused
    // A timer on its owner's monotonic clock: the reading it fires at (kNotLocal: none).
    std::int64_t local_due_ns = kNotLocal;
    std::int64_t at_ns = 0;  // when it runs: a key with another time is stale (moved timer)
    EventFn fn;
  };
  static constexpr int kBucketShift = 24;            // buckets of 2^24 ns (16.8 ms)
  static constexpr std::int64_t kRingBuckets = 1024;  // the ring reaches 17 s ahead
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};
  static constexpr std::int64_t kNotLocal = INT64_MIN;
  // The slot of the event running now: neither free (it cannot be reused while its callable
  // runs) nor cancellable (its key has left the queue).
  static constexpr std::uint64_t kRunning = kFree - 1;
  // Slots live in chunks that never move, so an event runs in its slot even when it schedules
  // others (which may add chunks).
  static constexpr int kChunkBits = 10;
  static constexpr std::uint32_t kChunkSlots = std::uint32_t{1} << kChunkBits;
  Slot& slot_at(std::uint32_t slot) {
    return slot_chunks_[slot >> kChunkBits][slot & (kChunkSlots - 1)];
  }
  bool is_stale(const Key& key) {
    const Slot& s = slot_at(key.slot());
    return s.seq != key.seq() || s.at_ns != key.at_ns;
  }
  // Moves the pending timers of `id`'s monotonic clock after a change of that clock.
  void retime_local_timers(ProcessId id);
  // Takes a free slot for an event of `owner` (its callable is built by the caller).
  // reserve_slot, enqueue and process are defined below, in this header: they run for every
  // event scheduled, from schedule_at's callers in every file.
  std::uint32_t reserve_slot(ProcessId owner);
  // A slot never used before (a new chunk when the last is full).
  std::uint32_t add_slot();
  // Queues the reserved slot's key at `at` (not before now).
  EventId enqueue(TrueTime at, std::uint32_t slot);
  void release_slot(std::uint32_t slot);
  void heap_push(const Key& key);
  void heap_pop();
  // Places `key` at the root and moves it down to its place (the root's old key is lost).
  void sift_down(const Key& key);
  // Pops the key of the event that ran last, unless an event it scheduled took its place.
  void drop_taken_front();
  // Drops stale keys and admits far events until the heap's front is the earliest live event
  // of all; false when no event is left.
  bool settle_front();
  // Runs the heap's front event (settle_front() returned true).
  void run_front();

  std::uint64_t seed_;
  Rng root_rng_;
  TrueTime now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t events_run_ = 0;
  std::vector<Key> queue_;  // a binary heap under Later: the earliest key first
  // The root of queue_ is the key of the event running (or last run), not yet popped.
  bool front_taken_ = false;
  std::vector<std::unique_ptr<Slot[]>> slot_chunks_;
  std::uint32_t slot_count_ = 0;
  std::vector<std::uint32_t> free_slots_;
  std::size_t live_events_ = 0;  // scheduled, not yet run, dropped or cancelled
  std::size_t stale_in_heap_ = 0;  // keys in queue_ of cancelled events
  // Bucket b (at_ns >> kBucketShift) is far_ring_[b % kRingBuckets]; it may hold stale keys
  // of cancelled events. Every bucket up to drained_bucket_ is in the heap; far keys are in
  // buckets after it and less than kRingBuckets after it.
  std::vector<std::vector<Key>> far_ring_ = std::vector<std::vector<Key>>(kRingBuckets);
  std::int64_t drained_bucket_ = 0;
  std::size_t far_live_ = 0;  // far events not cancelled
  std::vector<std::unique_ptr<Process>> processes_;
  std::map<ProcessId, std::function<void()>> crash_hooks_;
  std::map<ProcessId, std::function<void()>> restart_hooks_;
  std::vector<std::function<void(ProcessId)>> crash_listeners_;
  ProcessId current_ = kWorldProcess;
  bool running_held_ = false;
  WorldObserver* observer_ = nullptr;
};

inline Process& World::process(ProcessId id) {
  assert(id >= 0 && static_cast<std::size_t>(id) < processes_.size());
  return *processes_[static_cast<std::size_t>(id)];
}

inline const Process& World::process(ProcessId id) const {
  assert(id >= 0 && static_cast<std::size_t>(id) < processes_.size());
  return *processes_[static_cast<std::size_t>(id)];
}

inline std::uint32_t World::reserve_slot(ProcessId owner) {
  std::uint32_t slot;
  if (free_slots_.empty()) [[unlikely]] {
    slot = add_slot();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slot_at(slot);
  s.seq = next_seq_++;
  s.owner = owner;
  s.incarnation = process(owner).incarnation;
  s.held = false;
  s.local_due_ns = kNotLocal;
  ++live_events_;
  return slot;
}

inline World::EventId World::enqueue(TrueTime at, std::uint32_t slot) {
  if (at < now_) at = now_;
  Slot& s = slot_at(slot);
  const Key key{at.time_since_epoch().count(), (s.seq << kSlotBits) | slot};
  s.at_ns = key.at_ns;
  const std::int64_t bucket = key.at_ns >> kBucketShift;
  s.far = bucket > drained_bucket_ && bucket - drained_bucket_ < kRingBuckets;
  if (s.far) {
    far_ring_[static_cast<std::size_t>(bucket % kRingBuckets)].push_back(key);
    ++far_live_;
  } else {
    heap_push(key);
  }
  return EventId{slot, s.seq};
}

}  // namespace lockstep::sim
