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

def Mindir_Tensor : StaticShapeTensorOf<[Mindir_Element]>;
def Mindir_FloatTensor : StaticShapeTensorOf<[Mindir_Float]>;

class Mindir_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mindir_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>])>;

#endif // MINDIR_BASE_TD
