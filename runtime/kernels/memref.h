// memref.h - MLIR's strided memref descriptor, as the vendor kernels receive it.
#ifndef MSJIT_RUNTIME_KERNELS_MEMREF_H
#define MSJIT_RUNTIME_KERNELS_MEMREF_H

#include <cstdint>
#include <vector>

namespace msjit::kernels {

template <typename T, int Rank>
struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];

  T *data() const { return aligned + offset; }

  int64_t numElements() const {
    int64_t n = 1;
    for (int i = 0; i < Rank; ++i) n *= sizes[i];
    return n;
  }

  // Dense row-major (what oneDNN's plain formats expect).
  bool isContiguous() const {
    int64_t expected = 1;
    for (int i = Rank - 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }

  // A dense row-major copy of a strided view (rare: the compiler passes dense buffers).
  std::vector<T> denseCopy() const {
    std::vector<T> out(numElements());
    int64_t index[Rank] = {};
    for (int64_t n = 0; n < numElements(); ++n) {
      int64_t at = 0;
      for (int i = 0; i < Rank; ++i) at += index[i] * strides[i];
      out[n] = data()[at];
      for (int i = Rank - 1; i >= 0 && ++index[i] == sizes[i]; --i) index[i] = 0;
    }
    return out;
  }
};

// The dense data of `m`: its own buffer when already dense, else `scratch`.
template <typename T, int Rank>
const T *denseData(const MemRef<T, Rank> &m, std::vector<T> &scratch) {
  if (m.isContiguous()) return m.data();
  scratch = m.denseCopy();
  return scratch.data();
}

}  // namespace msjit::kernels

#endif  // MSJIT_RUNTIME_KERNELS_MEMREF_H
