// RUN: mindir-opt %s --split-input-file --verify-diagnostics

func.func @pred_not_scalar(%p: tensor<2xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{predicate must be a bool scalar (shape ()), got 'tensor<2xi1>'}}
  %0 = mindir.If %p, (%x) : (tensor<2xi1>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @pred_not_bool(%p: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{must be a bool tensor}}
  %0 = mindir.If %p, (%x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @branches_differ(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{branches return different types: then_branch (tensor<4xf32>), else_branch (tensor<f32>)}}
  %0 = mindir.If %p, (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = mindir.ReduceSum %a {axes = array<i64>, keep_dims = false} : (tensor<4xf32>) -> tensor<f32>
    mindir.Yield %s : tensor<f32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @branch_inputs_differ(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{else_branch takes (tensor<3xf32>), the node passes (tensor<4xf32>)}}
  %0 = mindir.If %p, (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<3xf32>):
    %z = mindir.Constant {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
    mindir.Yield %z : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @cond_not_bool_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cond must return one bool scalar (shape ()), returns (tensor<4xf32>)}}
  %0 = mindir.While (%x) : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    mindir.Yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @carried_type_changes(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{body returns (tensor<4xf64>), the loop carries (tensor<4xf32>)}}
  %0 = mindir.While (%x) : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    %t = mindir.Constant {value = dense<true> : tensor<i1>} : tensor<i1>
    mindir.Yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %c = mindir.Cast %a {to = f64} : (tensor<4xf32>) -> tensor<4xf64>
    mindir.Yield %c : tensor<4xf64>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'mindir.If, mindir.While'}}
  mindir.Yield %x : tensor<4xf32>
}

