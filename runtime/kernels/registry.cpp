// registry.cpp - kernel names an artifact may import.
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
  };
  for (const auto &k : kKernels)
    if (std::strcmp(k.name, name) == 0) return k.fn;
  return nullptr;
}
