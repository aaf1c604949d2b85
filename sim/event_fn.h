// EventFn: the callable a world event runs, and what a network message carries.
//
// Contract: a move-only `void()` callable, like std::move_only_function (C++23). Callables of
// up to kInlineBytes that move without throwing are stored inside the object; larger ones in
// one heap block.
// Why not std::function: it must be copyable, stores only 16 bytes inline, and a message used
// to be a std::function wrapped in another one, so every event cost one to three allocations;
// profiling showed malloc and free as the simulator's largest cost. Almost every event's
// closure (a coroutine resumption, a timer, a small raft message) fits the inline buffer.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace lockstep::sim {

class EventFn {
 public:
  // Room for the largest common closure: a raft append (its fields and entries, inside the
  // member's and the network's wrappers). At 48 bytes most raft messages took a heap block.
  static constexpr std::size_t kInlineBytes = 112;

  EventFn() noexcept = default;
  EventFn(std::nullptr_t) noexcept {}  // NOLINT: as std::function

  template <typename F>
    requires(!std::is_same_v<std::decay_t<F>, EventFn> && std::is_invocable_v<std::decay_t<F>&>)
  EventFn(F&& f) {  // NOLINT: implicit, as std::function
    using Fn = std::decay_t<F>;
    if constexpr (fits_inline<Fn>()) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      ::new (static_cast<void*>(storage_)) Fn*(new Fn(std::forward<F>(f)));
      ops_ = &kHeapOps<Fn>;
    }
  }

  EventFn(EventFn&& other) noexcept { take(other); }
  EventFn& operator=(EventFn&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  EventFn& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  EventFn(const EventFn&) = delete;
  EventFn& operator=(const EventFn&) = delete;
  ~EventFn() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    // Moves the callable from `from` into the empty `to` and leaves `from` empty.
    void (*relocate)(void* from, void* to) noexcept;
    // Null for a callable with nothing to destroy (most closures hold pointers and numbers):
    // every event is destroyed once, and an indirect call to an empty function showed up.
    void (*destroy)(void* storage) noexcept;
  };

  template <typename Fn>
  static constexpr bool fits_inline() {
    return sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<Fn>;
  }

  template <typename Fn>
  static constexpr Ops kInlineOps = {
      [](void* s) { (*std::launder(reinterpret_cast<Fn*>(s)))(); },
      [](void* from, void* to) noexcept {
        Fn* f = std::launder(reinterpret_cast<Fn*>(from));
        ::new (to) Fn(std::move(*f));
        f->~Fn();
      },
      std::is_trivially_destructible_v<Fn>
          ? nullptr
          : +[](void* s) noexcept { std::launder(reinterpret_cast<Fn*>(s))->~Fn(); },
  };
  // A heap callable: the storage holds a Fn* (trivially destructible, so relocating it is
  // constructing a copy of the pointer in the new storage).
  template <typename Fn>
  static Fn* heap_pointer(void* s) {
    return *std::launder(reinterpret_cast<Fn**>(s));
  }
  template <typename Fn>
  static constexpr Ops kHeapOps = {
      [](void* s) { (*heap_pointer<Fn>(s))(); },
      [](void* from, void* to) noexcept { ::new (to) Fn*(heap_pointer<Fn>(from)); },
      [](void* s) noexcept { delete heap_pointer<Fn>(s); },
  };

  void take(EventFn& other) noexcept {
    if (!other.ops_) return;
    other.ops_->relocate(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  void reset() noexcept {
    if (!ops_) return;
    const Ops* ops = std::exchange(ops_, nullptr);
    if (ops->destroy) ops->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace lockstep::sim
