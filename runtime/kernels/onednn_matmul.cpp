// onednn_matmul.cpp - float32 MatMul on oneDNN (AVX-512 JIT kernels where the CPU has them).
//
// Chosen over OpenBLAS for float32: Debian's OpenBLAS 0.3.21 runs its Haswell
// (AVX2) GEMM on Sapphire Rapids cores; measured on LlamaAttention forward
// (1, 512, 4096), jit O1 takes 318 ms with oneDNN and 501 ms with OpenBLAS.
// Operands are described to oneDNN by their strides, so transposed and batched
// views need no copies.
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/onednn.h"

namespace {

using msjit::kernels::MemRef;
using dnnl::memory;

// The logical (batch, rows, cols) view of `m`, transposing the last two dims when asked.
memory::desc viewDesc(const MemRef<float, 3> &m, bool transpose) {
  memory::dims dims = {m.sizes[0], m.sizes[1], m.sizes[2]}, strides = {m.strides[0], m.strides[1], m.strides[2]};
  if (transpose) {
    std::swap(dims[1], dims[2]);
    std::swap(strides[1], strides[2]);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_matmul_f32(msjit_memref3_f32 *a, msjit_memref3_f32 *b,
                                                    msjit_memref3_f32 *c, int64_t ta, int64_t tb) {
  using namespace msjit::kernels;
  memory::desc aMd = viewDesc(*a, ta), bMd = viewDesc(*b, tb), cMd = viewDesc(*c, false);
  std::string key = primitiveKey("matmul", a->sizes[0], a->sizes[1], a->sizes[2], a->strides[0], a->strides[1],
                                 a->strides[2], b->sizes[0], b->sizes[1], b->sizes[2], b->strides[0], b->strides[1],
                                 b->strides[2], c->strides[0], c->strides[1], ta, tb);
  auto primitive = cachedPrimitive<dnnl::matmul>(key, [&] {
    return dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(aMd, bMd, cMd), cpuEngine()));
  });
  dnnl::stream stream(cpuEngine());
  primitive.execute(stream, {{DNNL_ARG_SRC, memory(aMd, cpuEngine(), a->data())},
                             {DNNL_ARG_WEIGHTS, memory(bMd, cpuEngine(), b->data())},
                             {DNNL_ARG_DST, memory(cMd, cpuEngine(), c->data())}});
  stream.wait();
}
