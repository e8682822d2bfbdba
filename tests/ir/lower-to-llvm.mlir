// RUN: mindir-opt %s --msjit-O0 --split-input-file | FileCheck %s

// Math with an LLVM intrinsic lowers to it; tanh has none and calls libm.
// CHECK-LABEL: llvm.func @transcendental
// CHECK-DAG: llvm.intr.exp
// CHECK-DAG: llvm.intr.log
// CHECK-DAG: llvm.intr.sqrt
// CHECK-DAG: llvm.call @tanhf
// CHECK-NOT: math.
func.func @transcendental(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.Exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.Log %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.Sqrt %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = mindir.Tanh %2 : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Results become caller-allocated out-params (a 4th descriptor) with a C
// interface for the runtime.
// CHECK-LABEL: llvm.func @mul_add(
// CHECK-LABEL: llvm.func @_mlir_ciface_mul_add(
// CHECK-SAME: %arg3: !llvm.ptr
// CHECK-NOT: %arg4
func.func @mul_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32>
    attributes {llvm.emit_c_interface} {
  %0 = mindir.Mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mindir.Add %0, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Results are computed in their out-params: no temporary, no copy.
// CHECK-LABEL: llvm.func @relu(
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.intr.memcpy
// CHECK: llvm.return
func.func @relu(%x: tensor<64xf32>) -> tensor<64xf32> attributes {llvm.emit_c_interface} {
  %0 = mindir.ReLU %x : (tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// A returned slice is copied into its out-param by loops, never by the C
// runner's memrefCopy (artifacts do not link it).
// CHECK-LABEL: llvm.func @slice(
// CHECK-NOT: memrefCopy
// CHECK: llvm.return
func.func @slice(%x: tensor<3x2x4xf32>) -> tensor<2x2x1xf32> attributes {llvm.emit_c_interface} {
  %0 = mindir.StridedSlice %x {begin = array<i64: 1, 0, 0>, end = array<i64: 3, 2, 1>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x4xf32>) -> tensor<2x2x1xf32>
  return %0 : tensor<2x2x1xf32>
}
