//===- MindirBase.td - the mindir dialect --------------------*- tablegen -*-===//
//
// The `mindir` dialect mirrors MindSpore's primitives one op per primitive.
// Op mnemonics are the MindIR op_type strings themselves ("Add", "MatMul"),
// so the importer needs no per-op table: the proto's op_type is the op name.
//
//===----------------------------------------------------------------------===//

#ifndef MINDIR_BASE_TD
#define MINDIR_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def Mindir_Dialect : Dialect {
  let name = "mindir";
  let summary = "MindSpore-style tensor primitives on static-shape tensors";
  let description = [{
    Every op works on statically shaped ranked tensors. Shape and dtype rules
    live in each op's `inferReturnTypes`, so a graph built through the
    importer gets its types from one place and the verifier re-checks them.
  }];
  let cppNamespace = "::mlir::mindir";
  let useFoldAPI = kEmitFoldAdaptorFolder;
}

// Element types a tensor may carry (MindIR DataType).
def Mindir_Float : AnyTypeOf<[F16, F32, F64]>;
def Mindir_Element : AnyTypeOf<[F16, F32, F64, I32, I64, I1]>;

// Operand constraints: each op's operand types say exactly which dtypes it
// accepts (tests/py/test_primitive_contract.py checks them against the
// declarations in client_py/msjit/ops/prims.py). The summaries are what the
// verifier prints when an operand's dtype is not accepted.
def Mindir_Tensor : StaticShapeTensorOf<[Mindir_Element]>;
def Mindir_FloatTensor : StaticShapeTensorOf<[Mindir_Float]> {
  let summary = "a floating-point tensor (float16, float32 or float64)";
}
def Mindir_NumericTensor : StaticShapeTensorOf<[F16, F32, F64, I32, I64]> {
  let summary = "a numeric tensor (float16, float32, float64, int32 or int64; not bool)";
}
def Mindir_BoolTensor : StaticShapeTensorOf<[I1]> {
  let summary = "a bool tensor";
}
def Mindir_IndexTensor : StaticShapeTensorOf<[I32, I64]> {
  let summary = "an int32 or int64 tensor";
}
// What the vendor kernels (Conv2D, pooling and their gradients) compute on.
def Mindir_F32Tensor : StaticShapeTensorOf<[F32]> {
  let summary = "a float32 tensor (each vendor kernel supports float32 tensors only)";
}

// The operand constraint of an elementwise op of ElementKind `kind` (see MindirOps.h).
class Mindir_KindTensor<string kind> {
  TypeConstraint type = !cond(!eq(kind, "Float"): Mindir_FloatTensor,
                              !eq(kind, "Bool"): Mindir_BoolTensor,
                              !eq(kind, "Numeric"): Mindir_NumericTensor,
                              !eq(kind, "NumericCompare"): Mindir_NumericTensor,
                              true: Mindir_Tensor);
}

class Mindir_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mindir_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>])>;

#endif // MINDIR_BASE_TD
