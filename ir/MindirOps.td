//===- MindirOps.td - mindir ops -----------------------------*- tablegen -*-===//
//
// One def per primitive. Elementwise ops share their type rule through the
// classes below; the rules themselves are C++ functions in MindirOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MINDIR_OPS_TD
#define MINDIR_OPS_TD

include "MindirBase.td"
include "MindirInterfaces.td"

// Which dtypes an elementwise op takes, and what it returns (see ElementKind
// in MindirOps.h): numeric, float, bool, any; compare/logical ops return bool.
class Mindir_BinaryOp<string mnemonic, string summaryText, string kind = "Numeric",
                      list<Trait> traits = []>
    : Mindir_Op<mnemonic, traits> {
  let summary = summaryText;
  let arguments = (ins Mindir_KindTensor<kind>.type:$lhs, Mindir_KindTensor<kind>.type:$rhs);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferBroadcastBinary(loc, getOperationName(), operands, types,
                                  ElementKind::}] # kind # [{);
    }
  }];
}

// Unary elementwise: the result has the operand's type.
class Mindir_UnaryOp<string mnemonic, string summaryText, string kind = "Numeric",
                     list<Trait> traits = []>
    : Mindir_Op<mnemonic, traits> {
  let summary = summaryText;
  let arguments = (ins Mindir_KindTensor<kind>.type:$operand);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferUnary(loc, getOperationName(), operands, types, ElementKind::}] # kind # [{);
    }
  }];
}

def Mindir_AddOp : Mindir_BinaryOp<"Add", "elementwise x + y", "Numeric", [Differentiable]>;
def Mindir_SubOp : Mindir_BinaryOp<"Sub", "elementwise x - y", "Numeric", [Differentiable]>;
def Mindir_MulOp : Mindir_BinaryOp<"Mul", "elementwise x * y", "Numeric", [Differentiable]>;
def Mindir_DivOp : Mindir_BinaryOp<"Div", "elementwise true division x / y", "Float", [Differentiable]>;
def Mindir_PowOp : Mindir_BinaryOp<"Pow", "elementwise x ** y", "Float", [Differentiable]>;
def Mindir_MaximumOp : Mindir_BinaryOp<"Maximum", "elementwise max(x, y)", "Numeric", [Differentiable]>;
def Mindir_MinimumOp : Mindir_BinaryOp<"Minimum", "elementwise min(x, y)", "Numeric", [Differentiable]>;
def Mindir_EqualOp : Mindir_BinaryOp<"Equal", "elementwise x == y", "AnyCompare">;
def Mindir_NotEqualOp : Mindir_BinaryOp<"NotEqual", "elementwise x != y", "AnyCompare">;
def Mindir_LessOp : Mindir_BinaryOp<"Less", "elementwise x < y", "NumericCompare">;
def Mindir_LessEqualOp : Mindir_BinaryOp<"LessEqual", "elementwise x <= y", "NumericCompare">;
def Mindir_GreaterOp : Mindir_BinaryOp<"Greater", "elementwise x > y", "NumericCompare">;
def Mindir_GreaterEqualOp : Mindir_BinaryOp<"GreaterEqual", "elementwise x >= y", "NumericCompare">;
def Mindir_LogicalAndOp : Mindir_BinaryOp<"LogicalAnd", "elementwise x and y", "Bool">;
def Mindir_LogicalOrOp : Mindir_BinaryOp<"LogicalOr", "elementwise x or y", "Bool">;

def Mindir_NegOp : Mindir_UnaryOp<"Neg", "elementwise -x", "Numeric", [Differentiable]>;
def Mindir_ReLUOp : Mindir_UnaryOp<"ReLU", "elementwise max(x, 0)", "Numeric", [Differentiable]>;
def Mindir_AbsOp : Mindir_UnaryOp<"Abs", "elementwise |x|", "Numeric", [Differentiable]>;
def Mindir_ExpOp : Mindir_UnaryOp<"Exp", "elementwise e^x", "Float", [Differentiable]>;
def Mindir_LogOp : Mindir_UnaryOp<"Log", "elementwise natural logarithm", "Float", [Differentiable]>;
def Mindir_SqrtOp : Mindir_UnaryOp<"Sqrt", "elementwise square root", "Float", [Differentiable]>;
def Mindir_RsqrtOp : Mindir_UnaryOp<"Rsqrt", "elementwise 1 / sqrt(x)", "Float", [Differentiable]>;
def Mindir_SigmoidOp : Mindir_UnaryOp<"Sigmoid", "elementwise 1 / (1 + e^-x)", "Float", [Differentiable]>;
def Mindir_TanhOp : Mindir_UnaryOp<"Tanh", "elementwise hyperbolic tangent", "Float", [Differentiable]>;
def Mindir_SinOp : Mindir_UnaryOp<"Sin", "elementwise sine", "Float", [Differentiable]>;
def Mindir_CosOp : Mindir_UnaryOp<"Cos", "elementwise cosine", "Float", [Differentiable]>;
def Mindir_ErfOp : Mindir_UnaryOp<"Erf", "elementwise error function", "Float", [Differentiable]>;
def Mindir_LogicalNotOp : Mindir_UnaryOp<"LogicalNot", "elementwise not x", "Bool">;

def Mindir_SelectOp : Mindir_Op<"Select", [Differentiable]> {
  let summary = "elementwise cond ? x : y, all three broadcast together";
  let arguments = (ins Mindir_BoolTensor:$cond, Mindir_Tensor:$x, Mindir_Tensor:$y);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$cond `,` $x `,` $y attr-dict `:` functional-type(operands, results)";
}

def Mindir_MatMulOp : Mindir_Op<"MatMul", [Differentiable]> {
  let summary = "matrix product over the last two dims; leading dims are batch dims";
  let description = [{
    `transpose_a`/`transpose_b` swap the last two dims of that operand first.
    Runs on the runtime's BLAS kernel (see VendorKernels).
  }];
  let arguments = (ins Mindir_NumericTensor:$lhs, Mindir_NumericTensor:$rhs,
                       OptionalAttr<BoolAttr>:$transpose_a, OptionalAttr<BoolAttr>:$transpose_b);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

// `needsElements`: reducing an empty axis has no value (max, min).
class Mindir_ReduceOp<string mnemonic, string summaryText, bit floatOnly, bit needsElements = 0>
    : Mindir_Op<mnemonic, [Differentiable]> {
  let summary = summaryText;
  let description = [{
    `axes` are non-negative, sorted and unique; an empty list reduces every axis.
    With `keep_dims` the reduced axes stay as size-1 dims.
  }];
  let arguments = (ins !if(floatOnly, Mindir_FloatTensor, Mindir_NumericTensor):$operand, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attrs, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferReduce(loc, getOperationName(), operands, attrs, types,
                         /*floatOnly=*/}] # !if(floatOnly, "true", "false") # [{,
                         /*needsElements=*/}] # !if(needsElements, "true", "false") # [{);
    }
  }];
}

def Mindir_ReduceSumOp : Mindir_ReduceOp<"ReduceSum", "sum over axes", 0>;
def Mindir_ReduceMeanOp : Mindir_ReduceOp<"ReduceMean", "mean over axes", 1>;
def Mindir_ReduceMaxOp : Mindir_ReduceOp<"ReduceMax", "max over axes", 0, 1>;
def Mindir_ReduceMinOp : Mindir_ReduceOp<"ReduceMin", "min over axes", 0, 1>;

def Mindir_Conv2DOp : Mindir_Op<"Conv2D", [Differentiable]> {
  let summary = "2-D convolution, NCHW input, OIHW weight, explicit padding";
  let description = [{
    `pad` is [top, bottom, left, right]; `group` divides both channel counts.
    Runs on the runtime's oneDNN kernel (see VendorKernels).
  }];
  let arguments = (ins Mindir_F32Tensor:$input, Mindir_F32Tensor:$weight,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$dilation,
                       DenseI64ArrayAttr:$pad, I64Attr:$group);
  let results = (outs Mindir_F32Tensor:$result);
  let assemblyFormat = "$input `,` $weight attr-dict `:` functional-type(operands, results)";
}

// `extraAttrs`: AvgPool's count_include_pad (MaxPool has none). Every padding
// is smaller than the kernel, so each window holds an input element.
class Mindir_PoolOp<string mnemonic, string summaryText, dag extraAttrs = (ins)>
    : Mindir_Op<mnemonic, [Differentiable]> {
  let summary = summaryText;
  let arguments = !con((ins Mindir_F32Tensor:$input, DenseI64ArrayAttr:$kernel,
                            DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$pad), extraAttrs);
  let results = (outs Mindir_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attrs, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferPool(loc, getOperationName(), operands, attrs, types);
    }
  }];
}

def Mindir_MaxPoolOp : Mindir_PoolOp<"MaxPool", "2-D max pooling over NCHW">;
def Mindir_AvgPoolOp : Mindir_PoolOp<"AvgPool", "2-D average pooling over NCHW",
    (ins OptionalAttr<BoolAttr>:$count_include_pad)>;

// Gradient kernels of Conv2D and pooling (what their bprop rules emit). Like
// the forward ops they run on the runtime's kernels (see VendorKernels); dy
// has the forward result's shape, type rules in GradKernelOps.cpp.
class Mindir_GradKernelOp<string mnemonic, string summaryText, dag operandsAndAttrs,
                          list<Trait> traits = []>
    : Mindir_Op<mnemonic, traits> {
  let summary = summaryText;
  let arguments = operandsAndAttrs;
  let results = (outs Mindir_F32Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mindir_Conv2DBackpropInputOp : Mindir_GradKernelOp<"Conv2DBackpropInput",
    "gradient of Conv2D with respect to its input, of shape `input_shape`",
    (ins Mindir_F32Tensor:$dy, Mindir_F32Tensor:$weight, DenseI64ArrayAttr:$stride,
         DenseI64ArrayAttr:$dilation, DenseI64ArrayAttr:$pad, I64Attr:$group,
         DenseI64ArrayAttr:$input_shape), [Differentiable]>;
def Mindir_Conv2DBackpropFilterOp : Mindir_GradKernelOp<"Conv2DBackpropFilter",
    "gradient of Conv2D with respect to its weight, of shape `filter_shape`",
    (ins Mindir_F32Tensor:$dy, Mindir_F32Tensor:$input, DenseI64ArrayAttr:$stride,
         DenseI64ArrayAttr:$dilation, DenseI64ArrayAttr:$pad, I64Attr:$group,
         DenseI64ArrayAttr:$filter_shape), [Differentiable]>;
def Mindir_MaxPoolGradOp : Mindir_GradKernelOp<"MaxPoolGrad",
    "gradient of MaxPool: dy goes to the first maximum of each window",
    (ins Mindir_F32Tensor:$input, Mindir_F32Tensor:$dy, DenseI64ArrayAttr:$kernel,
         DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$pad)>;
def Mindir_AvgPoolGradOp : Mindir_GradKernelOp<"AvgPoolGrad",
    "gradient of AvgPool: dy spread evenly over each window, of shape `input_shape`",
    (ins Mindir_F32Tensor:$dy, DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
         DenseI64ArrayAttr:$pad, BoolAttr:$count_include_pad, DenseI64ArrayAttr:$input_shape),
    [Differentiable]>;

def Mindir_ReshapeOp : Mindir_Op<"Reshape", [Differentiable]> {
  let summary = "same elements, new static shape";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$shape);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_TransposeOp : Mindir_Op<"Transpose", [Differentiable]> {
  let summary = "permute dims: result dim i is operand dim perm[i]";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_BroadcastToOp : Mindir_Op<"BroadcastTo", [Differentiable]> {
  let summary = "numpy broadcast of the operand to `shape`";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$shape);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_TileOp : Mindir_Op<"Tile", [Differentiable]> {
  let summary = "repeat the operand `multiples[i]` times along dim i";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$multiples);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_StridedSliceOp : Mindir_Op<"StridedSlice", [Differentiable]> {
  let summary = "operand[begin:end:strides] per dim (normalized, see proto/OPS.md)";
  let arguments = (ins Mindir_Tensor:$operand, DenseI64ArrayAttr:$begin,
                       DenseI64ArrayAttr:$end, DenseI64ArrayAttr:$strides);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Mindir_ConcatOp : Mindir_Op<"Concat", [Differentiable]> {
  let summary = "join tensors along `axis`";
  let arguments = (ins Variadic<Mindir_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Mindir_GatherOp : Mindir_Op<"Gather", [Differentiable]> {
  let summary = "take slices of params along `axis` at indices";
  let arguments = (ins Mindir_Tensor:$params, Mindir_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$params `,` $indices attr-dict `:` functional-type(operands, results)";
}

class Mindir_TriangleOp<string mnemonic, string summaryText>
    : Mindir_Op<mnemonic, [Differentiable]> {
  let summary = summaryText;
  let arguments = (ins Mindir_Tensor:$operand, I64Attr:$diagonal);
  let results = (outs Mindir_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attrs, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferTriangle(loc, getOperationName(), operands, attrs, types);
    }
  }];
}

def Mindir_TriuOp : Mindir_TriangleOp<"Triu", "keep col - row >= diagonal of the last two dims">;
def Mindir_TrilOp : Mindir_TriangleOp<"Tril", "keep col - row <= diagonal of the last two dims">;

// Gradients (see passes/Autodiff.cpp).

def Mindir_StopGradientOp : Mindir_UnaryOp<"StopGradient",
    "identity whose result carries no gradient back to its operand", "Any">;

def Mindir_GradOp : Op<Mindir_Dialect, "Grad",
                       [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reverse-mode gradient of a private function";
  let description = [{
    Calls `callee` on the first n operands and returns its m results, then the
    gradient of sum_i sum(sens_i * result_i), over the first `num_diff`
    results, with respect to each callee argument listed in `wrt`. With
    `sens_param` the last `num_diff` operands are the sensitivities sens_i;
    otherwise they are all ones. `msjit-autodiff` expands it in place (the
    callee inlined, its backward built from each op's BpropOpInterface), so
    no Grad op reaches lowering.
  }];
  let arguments = (ins Variadic<Mindir_Tensor>:$inputs, FlatSymbolRefAttr:$callee,
                       DenseI64ArrayAttr:$wrt, I64Attr:$num_diff, BoolAttr:$sens_param);
  let results = (outs Variadic<Mindir_Tensor>:$results);
  let assemblyFormat = "$callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)";
}

// Control flow (issue 12). Region ops mirror the wire format: each branch,
// cond or body graph is one block whose arguments are the graph's inputs and
// whose mindir.Yield returns its outputs. Regions are isolated from above
// (graphs see only their inputs, as on the wire), so a region can be cloned
// into a function or another op as is (the If adjoint does).

def Mindir_YieldOp : Op<Mindir_Dialect, "Yield",
                        [Pure, Terminator, ParentOneOf<["IfOp", "WhileOp"]>]> {
  let summary = "the outputs of an If branch or a While cond/body";
  let arguments = (ins Variadic<Mindir_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Mindir_IfOp : Op<Mindir_Dialect, "If", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "run then_branch or else_branch on `inputs`, as the scalar `pred` says";
  let description = [{
    Exactly one branch runs (lowered to scf.if), so an untaken branch that
    would fault (an out-of-range Gather) is harmless. Both branches take
    block arguments of the inputs' types and yield the op's result types.
  }];
  let arguments = (ins Mindir_BoolTensor:$pred, Variadic<Mindir_Tensor>:$inputs);
  let results = (outs Variadic<Mindir_Tensor>:$results);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $pred `,` `(` $inputs `)` attr-dict `:` functional-type(operands, results)
    `then` $then_branch `else` $else_branch
  }];
  let hasVerifier = 1;
}

def Mindir_WhileOp : Op<Mindir_Dialect, "While", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "while cond(v): v = body(v), from v = `inputs`; returns the final v";
  let description = [{
    `cond` yields a bool scalar, `body` yields new values of the carried
    types (static shapes: loop-invariant). Lowered to scf.while.
  }];
  let arguments = (ins Variadic<Mindir_Tensor>:$inputs);
  let results = (outs Variadic<Mindir_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type(operands, results) `cond` $cond `do` $body
  }];
  let hasVerifier = 1;
}

def Mindir_CastOp : Mindir_Op<"Cast", [Differentiable]> {
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
