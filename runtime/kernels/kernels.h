/* kernels.h - the vendor kernels artifacts import (artifact_abi.h).
 *
 * Each takes pointers to MLIR memref descriptors (inputs, then the output it
 * writes) and i64 attributes, exactly as the compiler's VendorKernels pass
 * declares them. The eager path (the Python extension) calls the same
 * functions, so eager and compiled results come from the same kernels.
 */
#ifndef MSJIT_RUNTIME_KERNELS_KERNELS_H
#define MSJIT_RUNTIME_KERNELS_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
#include "runtime/kernels/memref.h"
extern "C" {
using msjit_memref3_f32 = msjit::kernels::MemRef<float, 3>;
using msjit_memref3_f64 = msjit::kernels::MemRef<double, 3>;
using msjit_memref4_f32 = msjit::kernels::MemRef<float, 4>;
#endif

/* c[b] = op(a[b]) @ op(b[b]) over rank-3 batches (float32: oneDNN, float64: OpenBLAS). */
void _mlir_ciface_msrt_kernel_matmul_f32(msjit_memref3_f32 *a, msjit_memref3_f32 *b, msjit_memref3_f32 *c,
                                         int64_t transpose_a, int64_t transpose_b);
void _mlir_ciface_msrt_kernel_matmul_f64(msjit_memref3_f64 *a, msjit_memref3_f64 *b, msjit_memref3_f64 *c,
                                         int64_t transpose_a, int64_t transpose_b);

/* NCHW convolution with OIHW weights (oneDNN). pad: top, bottom, left, right. */
void _mlir_ciface_msrt_kernel_conv2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *w, msjit_memref4_f32 *y,
                                         int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                         int64_t dilation_w, int64_t pad_top, int64_t pad_bottom,
                                         int64_t pad_left, int64_t pad_right, int64_t group);

/* NCHW pooling (oneDNN). */
void _mlir_ciface_msrt_kernel_max_pool2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *y, int64_t kernel_h,
                                             int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                             int64_t pad_top, int64_t pad_bottom, int64_t pad_left,
                                             int64_t pad_right);
void _mlir_ciface_msrt_kernel_avg_pool2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *y, int64_t kernel_h,
                                             int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                             int64_t pad_top, int64_t pad_bottom, int64_t pad_left,
                                             int64_t pad_right, int64_t count_include_pad);

/* Their gradients (oneDNN backward primitives), as proto/OPS.md defines them: the
 * first memref is dy, the last the gradient written; its shape is the forward's
 * input (Conv2DBackpropInput, pooling) or weight (Conv2DBackpropFilter). */
void _mlir_ciface_msrt_kernel_conv2d_backprop_input_f32(msjit_memref4_f32 *dy, msjit_memref4_f32 *w,
                                                        msjit_memref4_f32 *dx, int64_t stride_h, int64_t stride_w,
                                                        int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
                                                        int64_t pad_bottom, int64_t pad_left, int64_t pad_right,
                                                        int64_t group);
void _mlir_ciface_msrt_kernel_conv2d_backprop_filter_f32(msjit_memref4_f32 *dy, msjit_memref4_f32 *x,
                                                         msjit_memref4_f32 *dw, int64_t stride_h, int64_t stride_w,
                                                         int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
                                                         int64_t pad_bottom, int64_t pad_left, int64_t pad_right,
                                                         int64_t group);
/* MaxPoolGrad takes the forward input x first: it decides which tap won each window. */
void _mlir_ciface_msrt_kernel_max_pool2d_grad_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *dy, msjit_memref4_f32 *dx,
                                                  int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                                                  int64_t stride_w, int64_t pad_top, int64_t pad_bottom,
                                                  int64_t pad_left, int64_t pad_right);
void _mlir_ciface_msrt_kernel_avg_pool2d_grad_f32(msjit_memref4_f32 *dy, msjit_memref4_f32 *dx, int64_t kernel_h,
                                                  int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                                  int64_t pad_top, int64_t pad_bottom, int64_t pad_left,
                                                  int64_t pad_right, int64_t count_include_pad);

/* The heap of generated code (convert-memref-to-llvm's generic functions): a
 * cache of large blocks reused across calls (allocator.cpp). */
void *_mlir_memref_to_llvm_alloc(uint64_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/* The kernel an artifact imports under `name` ("msrt_kernel_conv2d_f32"), or NULL. */
void *msrt_kernel_lookup(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MSJIT_RUNTIME_KERNELS_KERNELS_H */
