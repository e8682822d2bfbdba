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
