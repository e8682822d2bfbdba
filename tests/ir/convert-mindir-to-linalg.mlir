// RUN: mindir-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s

// Broadcasting: the (3,) operand's map drops the leading dim.
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_add
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
// CHECK-NOT: mindir.
func.func @broadcast_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.Add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer MatMul is generated code; float MatMul goes to the BLAS kernel (vendor-kernels.mlir).
// CHECK-LABEL: func.func @matmul_i32
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @matmul_i32(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %0 = mindir.MatMul %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

// Batch dims beyond one are collapsed around linalg.batch_matmul.
// CHECK-LABEL: func.func @batch_matmul_i32
// CHECK: tensor.collapse_shape
// CHECK: linalg.batch_matmul
// CHECK: tensor.expand_shape
func.func @batch_matmul_i32(%a: tensor<2x5x3x4xi32>, %b: tensor<2x5x4x6xi32>) -> tensor<2x5x3x6xi32> {
  %0 = mindir.MatMul %a, %b : (tensor<2x5x3x4xi32>, tensor<2x5x4x6xi32>) -> tensor<2x5x3x6xi32>
  return %0 : tensor<2x5x3x6xi32>
}

// -----

// Float MatMul stays a mindir op in canonical rank-3 form for the vendor kernel.
// CHECK-LABEL: func.func @matmul_f32
// CHECK: tensor.expand_shape {{.*}} into tensor<1x2x3xf32>
// CHECK: mindir.MatMul {{.*}} -> tensor<1x2x4xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<2x4xf32>
func.func @matmul_f32(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = mindir.MatMul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @sum_keep_dims
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: tensor.expand_shape
func.func @sum_keep_dims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = mindir.ReduceSum %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// float16 transcendental math runs in float32, as numpy does.
// CHECK-LABEL: func.func @sigmoid_f16
// CHECK: arith.negf
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.exp {{.*}} : f32
// CHECK: arith.truncf
// CHECK: arith.divf {{.*}} : f16
func.func @sigmoid_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mindir.Sigmoid %x : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// (2,3) -> (3,2) has no direct reassociation: through the flat tensor.
// CHECK-LABEL: func.func @reshape
// CHECK: tensor.collapse_shape {{.*}} into tensor<6xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<3x2xf32>
func.func @reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = mindir.Reshape %x {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: arith.fptosi {{.*}} : f32 to i32
func.func @cast(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = mindir.Cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
