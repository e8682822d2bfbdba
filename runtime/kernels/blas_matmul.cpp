// blas_matmul.cpp - float64 MatMul on OpenBLAS GEMM, one call per batch
// (oneDNN's matmul, used for float32, has no float64).
#include <cblas.h>

#include <vector>

#include "runtime/kernels/kernels.h"

namespace {

using msjit::kernels::MemRef;

// A matrix view BLAS can take without copying: row-major with a leading
// dimension, or column-major (= the transpose of a row-major one).
template <typename T>
struct Operand {
  const T *data;
  int64_t batchStride, ld;
  bool transposed;
};

template <typename T>
Operand<T> operand(const MemRef<T, 3> &m, bool transpose, std::vector<T> &scratch) {
  if (m.strides[2] == 1 || m.sizes[2] == 1)
    return {m.data(), m.strides[0], std::max<int64_t>(m.strides[1], std::max<int64_t>(m.sizes[2], 1)), transpose};
  if (m.strides[1] == 1 || m.sizes[1] == 1)
    return {m.data(), m.strides[0], std::max<int64_t>(m.strides[2], std::max<int64_t>(m.sizes[1], 1)), !transpose};
  scratch = m.denseCopy();
  return {scratch.data(), m.sizes[1] * m.sizes[2], std::max<int64_t>(m.sizes[2], 1), transpose};
}

template <typename T, typename Gemm>
void matmul(MemRef<T, 3> *a, MemRef<T, 3> *b, MemRef<T, 3> *c, bool ta, bool tb, Gemm gemm) {
  std::vector<T> scratchA, scratchB;
  Operand<T> A = operand(*a, ta, scratchA), B = operand(*b, tb, scratchB);
  int64_t m = c->sizes[1], n = c->sizes[2], k = ta ? a->sizes[1] : a->sizes[2];
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    gemm(CblasRowMajor, A.transposed ? CblasTrans : CblasNoTrans, B.transposed ? CblasTrans : CblasNoTrans, m, n, k,
         T(1), A.data + batch * A.batchStride, A.ld, B.data + batch * B.batchStride, B.ld, T(0),
         c->data() + batch * c->strides[0], c->strides[1]);
}

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_matmul_f64(msjit_memref3_f64 *a, msjit_memref3_f64 *b,
                                                    msjit_memref3_f64 *c, int64_t ta, int64_t tb) {
  matmul<double>(a, b, c, ta, tb, cblas_dgemm);
}
