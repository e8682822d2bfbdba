//===- MindirOps.td - mindir ops -----------------------------*- tablegen -*-===//
//
// One def per primitive. Elementwise ops share their type rule through the
// classes below; the rules themselves are C++ functions in MindirOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MINDIR_OPS_TD
#define MINDIR_OPS_TD

include "MindirBase.td"

// Binary elementwise with numpy broadcasting; operands must share a dtype
// (the client inserts explicit Casts for promotion).
class Mindir_BinaryOp<string mnemonic, string summaryText, bit floatOnly = 0>
    : Mindir_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins Mindir_Tensor:$lhs, Mindir_Tensor:$rhs);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferBroadcastBinary(loc, getOperationName(), operands, types,
                                  /*floatOnly=*/}] # !if(floatOnly, "true", "false") # [{);
    }
  }];
}

// Unary elementwise: the result has the operand's type.
class Mindir_UnaryOp<string mnemonic, string summaryText, bit floatOnly = 0>
    : Mindir_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins Mindir_Tensor:$operand);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferUnary(loc, getOperationName(), operands, types,
                        /*floatOnly=*/}] # !if(floatOnly, "true", "false") # [{);
    }
  }];
}

def Mindir_AddOp : Mindir_BinaryOp<"Add", "elementwise x + y">;
def Mindir_SubOp : Mindir_BinaryOp<"Sub", "elementwise x - y">;
def Mindir_MulOp : Mindir_BinaryOp<"Mul", "elementwise x * y">;
def Mindir_DivOp : Mindir_BinaryOp<"Div", "elementwise true division x / y", 1>;
def Mindir_MaximumOp : Mindir_BinaryOp<"Maximum", "elementwise max(x, y)">;
def Mindir_MinimumOp : Mindir_BinaryOp<"Minimum", "elementwise min(x, y)">;

def Mindir_NegOp : Mindir_UnaryOp<"Neg", "elementwise -x">;
def Mindir_ReLUOp : Mindir_UnaryOp<"ReLU", "elementwise max(x, 0)">;
def Mindir_ExpOp : Mindir_UnaryOp<"Exp", "elementwise e^x", 1>;
def Mindir_LogOp : Mindir_UnaryOp<"Log", "elementwise natural logarithm", 1>;
def Mindir_SqrtOp : Mindir_UnaryOp<"Sqrt", "elementwise square root", 1>;
def Mindir_SigmoidOp : Mindir_UnaryOp<"Sigmoid", "elementwise 1 / (1 + e^-x)", 1>;
def Mindir_TanhOp : Mindir_UnaryOp<"Tanh", "elementwise hyperbolic tangent", 1>;

def Mindir_MatMulOp : Mindir_Op<"MatMul"> {
  let summary = "matrix product over the last two dims; leading dims are batch dims";
  let arguments = (ins Mindir_Tensor:$lhs, Mindir_Tensor:$rhs);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

class Mindir_ReduceOp<string mnemonic, string summaryText, bit floatOnly>
    : Mindir_Op<mnemonic> {
  let summary = summaryText;
  let description = [{
    `axes` are non-negative, sorted and unique; an empty list reduces every axis.
    With `keep_dims` the reduced axes stay as size-1 dims.
  }];
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attrs, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferReduce(loc, getOperationName(), operands, attrs, types,
                         /*floatOnly=*/}] # !if(floatOnly, "true", "false") # [{);
    }
  }];
}

def Mindir_ReduceSumOp : Mindir_ReduceOp<"ReduceSum", "sum over axes", 0>;
def Mindir_ReduceMeanOp : Mindir_ReduceOp<"ReduceMean", "mean over axes", 1>;

def Mindir_ReshapeOp : Mindir_Op<"Reshape"> {
  let summary = "same elements, new static shape";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$shape);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_TransposeOp : Mindir_Op<"Transpose"> {
  let summary = "permute dims: result dim i is operand dim perm[i]";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_CastOp : Mindir_Op<"Cast"> {
  let summary = "convert elements to dtype `to` (numpy astype semantics)";
  let arguments = (ins Mindir_Tensor:$operand, TypeAttr:$to);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_ConstantOp : Mindir_Op<"Constant", [ConstantLike]> {
  let summary = "a dense constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasFolder = 1;
}

#endif // MINDIR_OPS_TD
