// LocalRef: shared ownership of an object that never leaves its world, counted without atomics.
//
// Contract:
//   - T derives from LocalCounted, which holds the count in the object itself (one allocation)
//     and has a virtual destructor: a LocalRef<Base> may own a Derived and deletes it whole.
//   - The object is deleted when its last LocalRef goes. Copies count; moves do not.
//   - Every LocalRef to one object is used on one thread. A world runs on one thread, and its
//     objects stay in it, so the objects of the simulator may use it.
// Why not std::shared_ptr: once a program has threads (explore runs worlds in parallel), its
// counts are atomic, and a simulated call copied and dropped its result slot's pointer several
// times per request.
#pragma once

#include <concepts>
#include <cstdint>
#include <utility>

namespace lockstep::sim {

class LocalCounted {
 public:
  LocalCounted() = default;
  LocalCounted(const LocalCounted&) = delete;
  LocalCounted& operator=(const LocalCounted&) = delete;
  virtual ~LocalCounted() = default;

 private:
  template <typename>
  friend class LocalRef;
  mutable std::uint32_t refs_ = 0;
};

template <typename T>
class LocalRef {
 public:
  LocalRef() noexcept = default;
  // Takes a new object (`new T`), or shares one that other LocalRefs own.
  explicit LocalRef(T* object) noexcept : object_(object) { acquire(); }
  LocalRef(const LocalRef& other) noexcept : object_(other.object_) { acquire(); }
  LocalRef(LocalRef&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  // A reference to a derived object, seen as its base.
  template <typename U>
    requires std::convertible_to<U*, T*>
  LocalRef(const LocalRef<U>& other) noexcept : object_(other.get()) {  // NOLINT: implicit
    acquire();
  }
  LocalRef& operator=(LocalRef other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~LocalRef() { release(); }

  void reset() noexcept { LocalRef().swap(*this); }
  void swap(LocalRef& other) noexcept { std::swap(object_, other.object_); }
  T* get() const noexcept { return object_; }
  T& operator*() const noexcept { return *object_; }
  T* operator->() const noexcept { return object_; }
  explicit operator bool() const noexcept { return object_ != nullptr; }

 private:
  void acquire() const noexcept {
    if (object_) ++static_cast<const LocalCounted*>(object_)->refs_;
  }
  void release() noexcept {
    if (object_ && --static_cast<const LocalCounted*>(object_)->refs_ == 0) delete object_;
  }
  T* object_ = nullptr;
};

template <typename T, typename... Args>
LocalRef<T> make_local(Args&&... args) {
  return LocalRef<T>(new T(std::forward<Args>(args)...));
}

}  // namespace lockstep::sim
