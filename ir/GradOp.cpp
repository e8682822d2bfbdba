//===- GradOp.cpp - mindir.Grad: checks against its callee ----------------===//
//
// A Grad op's result types follow from its callee, so they are checked here
// (SymbolUserOpInterface) rather than inferred: the importer builds the callee
// first and gives the op the types this verifier expects.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::mindir;

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee) return emitOpError("callee '") << getCallee() << "' is not a function in this module";
  FunctionType type = callee.getFunctionType();
  int64_t n = type.getNumInputs(), m = type.getNumResults(), k = getNumDiff();
  if (m < 1) return emitOpError("callee '") << getCallee() << "' returns nothing";
  if (k < 1 || k > m) return emitOpError("num_diff ") << k << " must be in [1, " << m << "]";
  int64_t sens = getSensParam() ? k : 0;
  if (static_cast<int64_t>(getInputs().size()) != n + sens)
    return emitOpError("expects ") << n << " inputs" << (sens ? " and " + std::to_string(sens) + " sensitivities" : "")
                                   << ", got " << getInputs().size();
  for (int64_t i = 0; i < n; ++i)
    if (getInputs()[i].getType() != type.getInput(i))
      return emitOpError("input ") << i << " has type " << getInputs()[i].getType() << ", callee expects "
                                   << type.getInput(i);
  for (int64_t i = 0; i < sens; ++i)
    if (getInputs()[n + i].getType() != type.getResult(i))
      return emitOpError("sensitivity ") << i << " has type " << getInputs()[n + i].getType()
                                         << ", output " << i << " is " << type.getResult(i);
  for (int64_t i = 0; i < k; ++i)
    if (!getElementTypeOrSelf(type.getResult(i)).isa<FloatType>())
      return emitOpError("differentiated output ") << i << " must be floating-point, got " << type.getResult(i);
  SmallVector<Type> expected(type.getResults());
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t w : getWrt()) {
    if (w < 0 || w >= n || !seen.insert(w).second)
      return emitOpError("wrt position ") << w << " is out of range or repeated (callee has " << n << " inputs)";
    if (!getElementTypeOrSelf(type.getInput(w)).isa<FloatType>())
      return emitOpError("cannot differentiate with respect to input ") << w << " of type " << type.getInput(w);
    expected.push_back(type.getInput(w));
  }
  if (TypeRange(getResultTypes()) != TypeRange(expected))
    return emitOpError("results must be the callee's results then one gradient per wrt input");
  return success();
}
