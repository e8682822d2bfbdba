// registry.cpp - the runtime functions an artifact may import, by name.
#include <cstring>

#include "runtime/kernels/kernels.h"

extern "C" void *msrt_kernel_lookup(const char *name) {
  static const struct {
    const char *name;
    void *fn;
  } kKernels[] = {
      {"msrt_kernel_matmul_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_matmul_f32)},
      {"msrt_kernel_matmul_f64", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_matmul_f64)},
      {"msrt_kernel_conv2d_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_conv2d_f32)},
      {"msrt_kernel_max_pool2d_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_max_pool2d_f32)},
      {"msrt_kernel_avg_pool2d_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_avg_pool2d_f32)},
      {"msrt_kernel_conv2d_backprop_input_f32",
       reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_conv2d_backprop_input_f32)},
      {"msrt_kernel_conv2d_backprop_filter_f32",
       reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_conv2d_backprop_filter_f32)},
      {"msrt_kernel_max_pool2d_grad_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_max_pool2d_grad_f32)},
      {"msrt_kernel_avg_pool2d_grad_f32", reinterpret_cast<void *>(&_mlir_ciface_msrt_kernel_avg_pool2d_grad_f32)},
      {"_mlir_memref_to_llvm_alloc", reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_free", reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)},
  };
  for (const auto &k : kKernels)
    if (std::strcmp(k.name, name) == 0) return k.fn;
  return nullptr;
}
