// RUN: mindir-opt %s --split-input-file --verify-diagnostics

func.func @not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{not broadcastable}}
  %0 = mindir.Add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dtype_mismatch(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{different dtypes}}
  %0 = mindir.Mul %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_result_type(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{inferred type(s)}}
  %0 = mindir.Exp %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @exp_of_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{floating-point}}
  %0 = mindir.Exp %a : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @bad_perm(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{permutation}}
  %0 = mindir.Transpose %a {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @conv_input_grad_dy(%dy: tensor<2x6x3x6xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32> {
  // expected-error @+1 {{dy of type tensor<2x6x3x6xf32> does not match the forward result tensor<2x6x3x7xf32>}}
  %0 = mindir.Conv2DBackpropInput %dy, %w {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, pad = array<i64: 1, 0, 2, 1>, group = 2, input_shape = array<i64: 2, 4, 7, 6>} : (tensor<2x6x3x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32>
  return %0 : tensor<2x4x7x6xf32>
}

// -----

func.func @conv_filter_grad_result(%dy: tensor<2x6x3x7xf32>, %x: tensor<2x4x7x6xf32>) -> tensor<6x2x3x3xf32> {
  // expected-error @+1 {{inferred type(s)}}
  %0 = mindir.Conv2DBackpropFilter %dy, %x {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, pad = array<i64: 1, 0, 2, 1>, group = 2, filter_shape = array<i64: 6, 2, 3, 2>} : (tensor<2x6x3x7xf32>, tensor<2x4x7x6xf32>) -> tensor<6x2x3x3xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// -----

func.func @max_pool_grad_f64(%x: tensor<1x1x4x4xf64>, %dy: tensor<1x1x2x2xf64>) -> tensor<1x1x4x4xf64> {
  // expected-error @+1 {{supports float32 tensors}}
  %0 = mindir.MaxPoolGrad %x, %dy {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf64>, tensor<1x1x2x2xf64>) -> tensor<1x1x4x4xf64>
  return %0 : tensor<1x1x4x4xf64>
}

// -----

func.func @avg_pool_grad_needs_count_include_pad(%dy: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{requires attribute 'count_include_pad'}}
  %0 = mindir.AvgPoolGrad %dy {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, input_shape = array<i64: 1, 1, 4, 4>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
