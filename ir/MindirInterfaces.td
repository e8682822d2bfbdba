//===- MindirInterfaces.td - mindir op interfaces ------------*- tablegen -*-===//
//
// BpropOpInterface is how reverse-mode autodiff (passes/Autodiff.cpp) learns
// each op's gradient: an op that declares it (next to its def in
// MindirOps.td) says how the adjoint of its result becomes adjoints of its
// operands. The rules themselves are C++ in ir/bprop/, grouped like the
// lowerings in passes/MindirToLinalg/.
//
//===----------------------------------------------------------------------===//

#ifndef MINDIR_INTERFACES_TD
#define MINDIR_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Mindir_BpropOpInterface : OpInterface<"BpropOpInterface"> {
  let cppNamespace = "::mlir::mindir";
  let description = [{
    The vector-Jacobian product of a single-result op. `buildBprop` is called
    with the builder positioned after the op (and after every forward op), the
    adjoint `dout` of the result (same type as the result), and must append
    one value per operand to `dins`: that operand's adjoint, of exactly the
    operand's type, or a null Value when no gradient flows to it (integer and
    bool operands, indices, conditions). Rules may use the op's operands and
    result (CSE with the forward graph) and build any mindir ops.
  }];
  let methods = [
    InterfaceMethod<"Append the adjoint of each operand (or null) to `dins`.",
      "void", "buildBprop",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$dout,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$dins)>,
  ];
}

// The trait an op lists to declare its bprop rule.
defvar Differentiable = DeclareOpInterfaceMethods<Mindir_BpropOpInterface>;

#endif // MINDIR_INTERFACES_TD
