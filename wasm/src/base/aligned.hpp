// An allocator that starts every buffer on a 64-byte cache line, and the vector that uses it: for buffers that
// several threads write side by side (attention's output rows, head by head), so that no cache line holds the
// rows of two threads' parts. Not a pool or an arena: each vector owns its one allocation, as std::vector does.
#pragma once
#include <cstddef>
#include <new>
#include <vector>

namespace lookback {

constexpr std::size_t kCacheLine = 64;

template <class T>
struct CacheAligned {
  using value_type = T;
  CacheAligned() = default;
  template <class U>
  CacheAligned(const CacheAligned<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kCacheLine))); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kCacheLine)); }
  template <class U>
  bool operator==(const CacheAligned<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const CacheAligned<U>&) const noexcept { return false; }
};

template <class T>
using AlignedVector = std::vector<T, CacheAligned<T>>;

}  // namespace lookback
