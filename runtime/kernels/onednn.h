// onednn.h - the oneDNN engine, stream and primitive cache the kernels share.
#ifndef MSJIT_RUNTIME_KERNELS_ONEDNN_H
#define MSJIT_RUNTIME_KERNELS_ONEDNN_H

#include <dnnl.hpp>

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace msjit::kernels {

dnnl::engine &cpuEngine();

// Creating a primitive JIT-compiles it (~ms); calls with the same key reuse it.
// Primitives are immutable and may execute on several threads at once.
template <typename Primitive>
Primitive cachedPrimitive(const std::string &key, const std::function<Primitive()> &create) {
  static std::mutex mu;
  static std::unordered_map<std::string, Primitive> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, create()).first;
  return it->second;
}

// Every argument of a key, joined: shapes, strides and attributes.
template <typename... Ints>
std::string primitiveKey(const char *kind, Ints... values) {
  std::string key = kind;
  ((key += "," + std::to_string(values)), ...);
  return key;
}

}  // namespace msjit::kernels

#endif  // MSJIT_RUNTIME_KERNELS_ONEDNN_H
