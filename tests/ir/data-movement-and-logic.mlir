// RUN: mindir-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1) -> (d0 mod 2, d1 mod 3)>
// CHECK-LABEL: func.func @tile
// CHECK: linalg.generic {indexing_maps = [#[[TILE]]
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %0 = mindir.Tile %x {multiples = array<i64: 2, 2>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// A slice is an extract_slice over the covered range; dims with a negative
// stride are then reversed by a generic.
// CHECK-DAG: #[[REVERSE:.*]] = affine_map<(d0, d1) -> (-d0 + 1, d1)>
// CHECK-LABEL: func.func @strided_slice
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 2] [1, 2]
// CHECK: linalg.generic {indexing_maps = [#[[REVERSE]]
func.func @strided_slice(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = mindir.StridedSlice %x {begin = array<i64: 1, 0>, end = array<i64: -1, 3>, strides = array<i64: -1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A prefix slice (begin 0, stride 1) is a plain extract_slice: x[1:, :, :1].
// CHECK-LABEL: func.func @prefix_slice
// CHECK: tensor.extract_slice %{{.*}}[1, 0, 0] [2, 2, 1] [1, 1, 1]
// CHECK-NOT: linalg.generic
func.func @prefix_slice(%x: tensor<3x2x4xf32>) -> tensor<2x2x1xf32> {
  %0 = mindir.StridedSlice %x {begin = array<i64: 1, 0, 0>, end = array<i64: 3, 2, 1>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x4xf32>) -> tensor<2x2x1xf32>
  return %0 : tensor<2x2x1xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: tensor.insert_slice {{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice {{.*}}[2, 0] [1, 3] [1, 1]
func.func @concat(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) -> tensor<3x3xf32> {
  %0 = mindir.Concat %x, %y {axis = 0} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Negative indices wrap, out-of-range ones clamp, then the element is extracted.
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract
func.func @gather(%p: tensor<5x3xf32>, %i: tensor<4xi32>) -> tensor<4x3xf32> {
  %0 = mindir.Gather %p, %i {axis = 0} : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Comparisons return bool; Select broadcasts all three operands.
// CHECK-LABEL: func.func @compare_select
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @compare_select(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = mindir.Less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = mindir.Select %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// ReduceMax starts from -inf.
// CHECK-LABEL: func.func @reduce_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.fill
// CHECK: arith.maxf
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = mindir.ReduceMax %x {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @triu
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @triu(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = mindir.Triu %x {diagonal = 0} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
