//===- ControlFlowOps.cpp - mindir.If / mindir.While verifiers ------------===//
//
// Region ops get their result types from their graphs, so (like Grad) they
// are checked here rather than inferred: the importer builds the regions
// first and verifies the op at once, so a mismatch is reported at its node
// before anything downstream reads the results.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "ir/TypeRules.h"

using namespace mlir;
using namespace mlir::mindir;
using mlir::mindir::rules::typeStr;

namespace {

std::string typesStr(TypeRange types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + typeStr(types[i]);
  return s + ")";
}

// The graph in `region` takes `inputs`' types; returns what it yields.
FailureOr<TypeRange> graphTypes(Operation *op, Region &region, StringRef name, TypeRange inputs) {
  Block &block = region.front();
  if (TypeRange(block.getArgumentTypes()) != inputs)
    return op->emitOpError() << name << " takes " << typesStr(block.getArgumentTypes()) << ", the node passes "
                             << typesStr(inputs);
  // (This verifier runs before the region's own: a hand-written block may lack a terminator.)
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield) return op->emitOpError() << name << " must end in mindir.Yield";
  return TypeRange(yield.getValues().getTypes());
}

bool isBoolScalar(Type t) {
  auto tensor = t.dyn_cast<RankedTensorType>();
  return tensor && tensor.getRank() == 0 && tensor.getElementType().isInteger(1);
}

}  // namespace

LogicalResult IfOp::verify() {
  if (!isBoolScalar(getPred().getType()))
    return emitOpError("predicate must be a bool scalar (shape ()), got ") << getPred().getType();
  TypeRange inputs = getInputs().getTypes();
  auto thenTypes = graphTypes(*this, getThenBranch(), "then_branch", inputs);
  if (failed(thenTypes)) return failure();
  auto elseTypes = graphTypes(*this, getElseBranch(), "else_branch", inputs);
  if (failed(elseTypes)) return failure();
  if (*thenTypes != *elseTypes)
    return emitOpError("branches return different types: then_branch ")
           << typesStr(*thenTypes) << ", else_branch " << typesStr(*elseTypes);
  if (TypeRange(getResultTypes()) != *thenTypes)
    return emitOpError("results ") << typesStr(getResultTypes()) << " differ from the branches' "
                                   << typesStr(*thenTypes);
  return success();
}

LogicalResult WhileOp::verify() {
  TypeRange carried = getInputs().getTypes();
  auto condTypes = graphTypes(*this, getCond(), "cond", carried);
  if (failed(condTypes)) return failure();
  if (condTypes->size() != 1 || !isBoolScalar(condTypes->front()))
    return emitOpError("cond must return one bool scalar (shape ()), returns ") << typesStr(*condTypes);
  auto bodyTypes = graphTypes(*this, getBody(), "body", carried);
  if (failed(bodyTypes)) return failure();
  if (*bodyTypes != carried)
    return emitOpError("body returns ") << typesStr(*bodyTypes) << ", the loop carries " << typesStr(carried)
                                        << " (carried dtypes and shapes are loop-invariant)";
  if (TypeRange(getResultTypes()) != carried)
    return emitOpError("results ") << typesStr(getResultTypes()) << " differ from the carried "
                                   << typesStr(carried);
  return success();
}
