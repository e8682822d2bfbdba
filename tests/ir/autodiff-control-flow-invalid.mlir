// RUN: mindir-opt %s --msjit-autodiff-O0 --verify-diagnostics

// Gradients of loops are not supported yet: refused at the While node.
func.func private @grad_body_0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate through a While loop}}
  %0 = mindir.While (%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%a: tensor<f32>):
    %t = mindir.Constant {value = dense<true> : tensor<i1>} : tensor<i1>
    mindir.Yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>):
    %b = mindir.Add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    mindir.Yield %b : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @grad_of_while(%x: tensor<f32>) -> tensor<f32> {
  %0:2 = mindir.Grad @grad_body_0(%x) {wrt = array<i64: 0>, num_diff = 1, sens_param = false} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0#1 : tensor<f32>
}
