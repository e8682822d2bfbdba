//===- RegionAdjoints.cpp - adjoints of mindir.If / mindir.While ----------===//
//
// Built from region ops and mindir.Grad ops of private functions made from
// the regions: msjit-autodiff expands those Grad ops next (innermost first),
// so control flow nests inside branches, loops and Grad bodies to any depth.
//
//===----------------------------------------------------------------------===//
#include "passes/RegionAdjoints.h"

#include "ir/bprop/BpropUtils.h"
#include "mlir/IR/IRMapping.h"

namespace msjit::passes {

using namespace mlir;

namespace {

// The graph in `region` run on `args` at `b`: its ops cloned, its Yield's values returned.
SmallVector<Value> inlineGraph(OpBuilder &b, Region &region, ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator()) b.clone(op, map);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands()) results.push_back(map.lookupOrDefault(v));
  return results;
}

// The graph in `region` as a private function returning its outputs `outputs`,
// for a mindir.Grad to call (named grad_body_*: erased once expanded).
func::FuncOp functionOf(SymbolTable &symbols, Location loc, Region &region, ArrayRef<int64_t> outputs) {
  Block &block = region.front();
  OpBuilder b(symbols.getOp()->getContext());
  b.setInsertionPointToEnd(&symbols.getOp()->getRegion(0).front());
  SmallVector<Type> types;
  for (int64_t i : outputs) types.push_back(block.getTerminator()->getOperand(i).getType());
  auto func = b.create<func::FuncOp>(loc, "grad_body_region", b.getFunctionType(block.getArgumentTypes(), types));
  func.setPrivate();
  symbols.insert(func);  // renames it unique
  b.setInsertionPointToEnd(func.addEntryBlock());
  SmallVector<Value> all = inlineGraph(b, region, func.getArguments()), results;
  for (int64_t i : outputs) results.push_back(all[i]);
  b.create<func::ReturnOp>(loc, results);
  return func;
}

// The gradients w.r.t. inputs `wrt` of `func` at args = (inputs..., sensitivities of all its results...).
SmallVector<Value> gradOf(OpBuilder &b, Location loc, func::FuncOp func, ValueRange args, ArrayRef<int64_t> wrt) {
  SmallVector<Type> types(func.getResultTypes());
  for (int64_t w : wrt) types.push_back(func.getArgumentTypes()[w]);
  auto grad = b.create<mindir::GradOp>(loc, types, args, FlatSymbolRefAttr::get(func.getNameAttr()),
                                       b.getDenseI64ArrayAttr(wrt), b.getI64IntegerAttr(func.getNumResults()),
                                       b.getBoolAttr(true));
  return SmallVector<Value>(grad.getResults().drop_front(func.getNumResults()));
}

// A mindir.While over `inits` at `b`: `cond` builds the bool scalar, `body` the next values.
using GraphBuilder = function_ref<SmallVector<Value>(OpBuilder &, ValueRange)>;
mindir::WhileOp buildWhile(OpBuilder &b, Location loc, ValueRange inits,
                           function_ref<Value(OpBuilder &, ValueRange)> cond, GraphBuilder body) {
  auto loop = b.create<mindir::WhileOp>(loc, inits.getTypes(), inits);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(inits.size(), loc);
  Block *block = b.createBlock(&loop.getCond(), {}, inits.getTypes(), locs);
  b.create<mindir::YieldOp>(loc, cond(b, block->getArguments()));
  block = b.createBlock(&loop.getBody(), {}, inits.getTypes(), locs);
  b.create<mindir::YieldOp>(loc, body(b, block->getArguments()));
  return loop;
}

// `to`'s single block: (x..., dout...) -> the gradients of `from` w.r.t. x[wrt].
void branchAdjoint(OpBuilder &b, SymbolTable &symbols, Location loc, Region &from, Region &to,
                   ArrayRef<int64_t> diffOutputs, ArrayRef<int64_t> wrt, TypeRange argTypes) {
  func::FuncOp func = functionOf(symbols, loc, from, diffOutputs);
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&to, to.end(), argTypes, SmallVector<Location>(argTypes.size(), loc));
  b.create<mindir::YieldOp>(loc, gradOf(b, loc, func, block->getArguments(), wrt));
}

}  // namespace

SmallVector<Value> ifAdjoint(OpBuilder &b, SymbolTable &symbols, mindir::IfOp op, ArrayRef<int64_t> diffOutputs,
                             ValueRange douts, ArrayRef<int64_t> wrt) {
  Location loc = op.getLoc();
  SmallVector<Value> inputs(op.getInputs());
  llvm::append_range(inputs, douts);
  SmallVector<Type> gradTypes;
  for (int64_t w : wrt) gradTypes.push_back(op.getInputs()[w].getType());
  auto adjoint = b.create<mindir::IfOp>(loc, gradTypes, op.getPred(), inputs);
  for (auto [from, to] : {std::pair{&op.getThenBranch(), &adjoint.getThenBranch()},
                          std::pair{&op.getElseBranch(), &adjoint.getElseBranch()}})
    branchAdjoint(b, symbols, loc, *from, *to, diffOutputs, wrt, TypeRange(ValueRange(inputs).getTypes()));
  return SmallVector<Value>(adjoint.getResults());
}

SmallVector<Value> whileAdjoint(OpBuilder &b0, SymbolTable &symbols, mindir::WhileOp op, ArrayRef<int64_t> floats,
                                ValueRange douts) {
  Location loc = op.getLoc();
  Region &cond = op.getCond(), &body = op.getBody();
  auto count = [&](OpBuilder &b, int64_t v) {
    return mindir::bprop::splat(b, loc, RankedTensorType::get({}, b.getI64Type()), v);
  };
  // Forward again, counting the iterations.
  SmallVector<Value> inits{count(b0, 0)};
  llvm::append_range(inits, op.getInputs());
  auto counter = buildWhile(b0, loc, inits,
      [&](OpBuilder &b, ValueRange a) { return inlineGraph(b, cond, a.drop_front()).front(); },
      [&](OpBuilder &b, ValueRange a) {
        SmallVector<Value> next{b.create<mindir::AddOp>(loc, a[0], count(b, 1))};
        llvm::append_range(next, inlineGraph(b, body, a.drop_front()));
        return next;
      });
  // Backward: carries (k, the adjoints of the float carried values, the initial values).
  func::FuncOp step = functionOf(symbols, loc, body, floats);
  size_t f = floats.size();
  SmallVector<Value> reverseInits{b0.create<mindir::SubOp>(loc, counter.getResult(0), count(b0, 1))};
  llvm::append_range(reverseInits, douts);
  llvm::append_range(reverseInits, op.getInputs());
  auto reverse = buildWhile(b0, loc, reverseInits,
      [&](OpBuilder &b, ValueRange a) { return b.create<mindir::GreaterEqualOp>(loc, a[0], count(b, 0)).getResult(); },
      [&](OpBuilder &b, ValueRange a) {
        Value k = a[0];
        ValueRange dv = a.slice(1, f), v0 = a.drop_front(1 + f);
        // The state entering iteration k: body run k times from v0.
        SmallVector<Value> replayInits{count(b, 0), k};
        llvm::append_range(replayInits, v0);
        auto replay = buildWhile(b, loc, replayInits,
            [&](OpBuilder &b, ValueRange r) { return b.create<mindir::LessOp>(loc, r[0], r[1]).getResult(); },
            [&](OpBuilder &b, ValueRange r) {
              SmallVector<Value> next{b.create<mindir::AddOp>(loc, r[0], count(b, 1)), r[1]};
              llvm::append_range(next, inlineGraph(b, body, r.drop_front(2)));
              return next;
            });
        SmallVector<Value> gradInputs(replay.getResults().drop_front(2));
        llvm::append_range(gradInputs, dv);
        SmallVector<Value> next{b.create<mindir::SubOp>(loc, k, count(b, 1))};
        llvm::append_range(next, gradOf(b, loc, step, gradInputs, floats));
        llvm::append_range(next, v0);
        return next;
      });
  return SmallVector<Value>(reverse.getResults().slice(1, f));
}

}  // namespace msjit::passes
