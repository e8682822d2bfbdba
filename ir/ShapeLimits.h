//===- ShapeLimits.h - limits and checked arithmetic for shapes --*- C++ -*-===//
//
// Plain C++ (no MLIR, no protobuf) so that the daemon's cheap request check and
// the importer share one definition of "too big" and one overflow-free way of
// multiplying dims. Every element or byte count of untrusted input goes
// through these helpers: a product that would wrap is an error, never a value.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_IR_SHAPELIMITS_H
#define MSJIT_IR_SHAPELIMITS_H

#include <cstdint>
#include <string>

namespace msjit::ir {

struct ShapeLimits {
  int64_t maxNodes = 200000;                 // nodes of the whole model, Grad bodies included
  int maxRank = 32;                          // dims of one tensor
  int64_t maxElements = int64_t(1) << 40;    // elements of one tensor (and its largest stride)
  int maxGraphDepth = 8;                     // graphs (Grad, If, While bodies) nested in each other
};

// a * b, false when it overflows int64.
inline bool checkedMul(int64_t a, int64_t b, int64_t &out) { return !__builtin_mul_overflow(a, b, &out); }
inline bool checkedAdd(int64_t a, int64_t b, int64_t &out) { return !__builtin_add_overflow(a, b, &out); }

// The element count of `dims` (any range of int64), false on a negative dim or overflow.
template <typename Dims>
bool checkedElements(const Dims &dims, int64_t &out) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || !checkedMul(n, d, n)) return false;
  out = n;
  return true;
}

// The byte count of `dims` at `elementBytes` per element, false on a negative dim or overflow.
template <typename Dims>
bool checkedBytes(const Dims &dims, int64_t elementBytes, int64_t &out) {
  int64_t n;
  return checkedElements(dims, n) && checkedMul(n, elementBytes, out);
}

// "" when `dims` is within `limits`, else why not ("rank 33 exceeds the limit of 32", ...).
// The span (product of the dims with 0 read as 1) is what is bounded: it bounds the
// element count and every stride, so an empty (0, 2^62, 2^62) tensor is refused too.
template <typename Dims>
std::string dimsError(const Dims &dims, const ShapeLimits &limits) {
  int64_t rank = 0, span = 1;
  for (int64_t d : dims) {
    ++rank;
    if (d < 0) return "has a negative dim " + std::to_string(d);
    if (d > 1 && !checkedMul(span, d, span))
      return "has more elements than fit in 64 bits";
  }
  if (rank > limits.maxRank)
    return "has rank " + std::to_string(rank) + ", over the limit of " + std::to_string(limits.maxRank);
  if (span > limits.maxElements)
    return "spans " + std::to_string(span) + " elements, over the limit of " + std::to_string(limits.maxElements);
  return "";
}

inline std::string nodeCountError(int64_t nodes, const ShapeLimits &limits) {
  if (nodes <= limits.maxNodes) return "";
  return "the model has more than " + std::to_string(limits.maxNodes) + " nodes (the limit, msjitd's --max-nodes)";
}

inline std::string graphDepthError(int depth, const ShapeLimits &limits) {
  if (depth <= limits.maxGraphDepth) return "";
  return "graphs (Grad, If, While bodies) are nested " + std::to_string(depth) + " deep, over the limit of " +
         std::to_string(limits.maxGraphDepth);
}

}  // namespace msjit::ir

#endif  // MSJIT_IR_SHAPELIMITS_H
