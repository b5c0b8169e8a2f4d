// The one handle table of the bindings: JS holds a number, the module holds the object. Every handle-based
// family (models, window models, resident weights, training runs) keeps its objects in one Handles<T>.
// Not here: what the objects do (their own bindings) or JS's side (web/js/api).
#pragma once
#include <cmath>
#include <map>
#include <memory>

#include "args.hpp"

namespace lookback::bind {

template <class T>
class Handles {
 public:
  // `stale`: what a call on a freed or unknown handle says after its function's name.
  explicit Handles(const char* stale) : stale_(stale) {}

  // Takes the object; its new handle (never reused, counting from 1).
  int add(std::unique_ptr<T> object) {
    const int handle = next_++;
    objects_[handle] = std::move(object);
    return handle;
  }

  // The object of a handle, or an ArgError "<fn>: <stale>".
  T& at(const char* fn, double handle) const {
    const auto it = std::isfinite(handle) && handle == std::floor(handle) ? objects_.find(int(handle)) : objects_.end();
    if (it == objects_.end()) fail(fn, ": ", stale_);
    return *it->second;
  }

  // Frees the object; false when the handle held none.
  bool erase(double handle) {
    return std::isfinite(handle) && handle == std::floor(handle) && objects_.erase(int(handle)) > 0;
  }

 private:
  const char* stale_;
  int next_ = 1;
  std::map<int, std::unique_ptr<T>> objects_;
};

}  // namespace lookback::bind
