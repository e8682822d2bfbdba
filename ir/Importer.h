//===- Importer.h - MindIR ModelProto -> mindir dialect ---------*- C++ -*-===//
#ifndef MSJIT_IR_IMPORTER_H
#define MSJIT_IR_IMPORTER_H

#include <string>

#include "ir/ShapeLimits.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "proto/mindir.pb.h"

namespace msjit::ir {

// Loads the dialects a MindIR module needs into `ctx`.
void registerDialects(mlir::MLIRContext &ctx);

// Builds `func.func @main` from the graph: graph inputs then parameters become
// arguments, nodes become mindir ops in dependency order, graph outputs are
// returned. Each op's location is NameLoc(node name, file:line).
// On bad input returns null and sets `error` to a message naming the node,
// e.g. "node 'Mul_3' (model.py:12): Mul operands have different dtypes ...".
// Every tensor type (inputs, constants, each op's inferred results), the node
// count and the Grad body nesting are held to `limits`, with checked arithmetic.
mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &ctx,
                                              const mindir::ModelProto &model,
                                              std::string &error,
                                              const ShapeLimits &limits = {});

// Formats MLIR diagnostics the way importModel reports them.
std::string describeLocation(mlir::Location loc);

}  // namespace msjit::ir

#endif  // MSJIT_IR_IMPORTER_H
