//===- Dtypes.h - MindIR DataType <-> MLIR element type ---------*- C++ -*-===//
#ifndef MSJIT_IR_DTYPES_H
#define MSJIT_IR_DTYPES_H

#include "ir/ProtoUtil.h"
#include "mlir/IR/BuiltinTypes.h"
#include "proto/mindir.pb.h"

namespace msjit::ir {

// Null type for DT_UNDEFINED or an unknown enum value.
mlir::Type toMlirType(mindir::DataType dtype, mlir::MLIRContext *ctx);
// DT_UNDEFINED for a type MindIR cannot carry.
mindir::DataType fromMlirType(mlir::Type type);
// Short name used in manifests and messages: "f32", "f16", "i32", ...
const char *dtypeName(mindir::DataType dtype);

}  // namespace msjit::ir

#endif  // MSJIT_IR_DTYPES_H
