// allocator.cpp - the heap of generated code (convert-memref-to-llvm's generic
// allocation functions, imported by artifacts).
//
// A graph allocates the same temporaries on every call. Freed blocks of 1 MiB
// and more are kept, by exact (page-rounded) size, up to a budget, and handed
// back on the next request of that size: no page faults, no zeroing by the
// kernel, on the hot path. Smaller blocks go straight to malloc.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/kernels/kernels.h"

namespace {

constexpr size_t kHeader = 64;  // keeps the returned pointer 64-byte aligned
constexpr size_t kPage = 4096, kCachedMin = 1 << 20, kBudget = size_t(1) << 30;

struct Cache {
  std::mutex mu;
  std::multimap<size_t, void *> free;  // rounded size -> block (header included)
  size_t bytes = 0;
};

Cache &cache() {
  static Cache *c = new Cache;  // never destroyed: artifacts may free during exit
  return *c;
}

size_t rounded(size_t size) { return (size + kHeader + kPage - 1) / kPage * kPage; }

}  // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  size_t total = rounded(size);
  void *block = nullptr;
  if (total >= kCachedMin) {
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (auto it = c.free.find(total); it != c.free.end()) {
      block = it->second;
      c.free.erase(it);
      c.bytes -= total;
    }
  }
  if (!block && !(block = std::aligned_alloc(kHeader, total))) return nullptr;
  *static_cast<size_t *>(block) = total;
  return static_cast<char *>(block) + kHeader;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr) return;
  void *block = static_cast<char *>(ptr) - kHeader;
  size_t total = *static_cast<size_t *>(block);
  if (total >= kCachedMin) {
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.bytes + total <= kBudget) {
      c.free.emplace(total, block);
      c.bytes += total;
      return;
    }
  }
  std::free(block);
}
