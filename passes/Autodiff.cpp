//===- Autodiff.cpp - msjit-autodiff: reverse mode over mindir ------------===//
//
// Each mindir.Grad op is expanded in place: its callee's body is inlined (the
// forward), then a reverse sweep over the inlined ops builds the backward from
// each op's BpropOpInterface. Only *active* ops get a rule evaluated: those
// whose result depends on a differentiated input and feeds a differentiated
// output (dead-gradient pruning). The backward reads forward values directly,
// so the following CSE merges what both compute; whether a forward value is
// stored or recomputed for the backward is left to msjit-rematerialize (O1).
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "ir/bprop/BpropUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "passes/Passes.h"

#define DEBUG_TYPE "msjit-autodiff"

namespace msjit::passes {

#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"

namespace {

using namespace mlir;

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

class GradExpansion {
 public:
  GradExpansion(mindir::GradOp grad, func::FuncOp callee, SymbolTable &symbols)
      : grad_(grad), callee_(callee), symbols_(symbols), b_(grad) {}

  LogicalResult run() {
    Block &body = callee_.getBody().front();
    int64_t n = callee_.getNumArguments(), k = grad_.getNumDiff();
    Location loc = grad_.getLoc();
    // Each differentiated input gets a placeholder of its own: the same outer
    // value may be passed twice, and its two gradients must stay apart.
    IRMapping map;
    SmallVector<Operation *> placeholders;
    for (int64_t i = 0; i < n; ++i) map.map(body.getArgument(i), grad_.getInputs()[i]);
    for (int64_t w : grad_.getWrt()) {
      Value outer = grad_.getInputs()[w];
      auto placeholder = b_.create<UnrealizedConversionCastOp>(loc, outer.getType(), outer);
      placeholders.push_back(placeholder);
      map.map(body.getArgument(w), placeholder.getResult(0));
      varied_.insert(placeholder.getResult(0));
    }
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator()) forward.push_back(b_.clone(op, map));
    SmallVector<Value> outputs;
    for (Value v : body.getTerminator()->getOperands()) outputs.push_back(map.lookupOrDefault(v));

    markActive(forward, ArrayRef<Value>(outputs).take_front(k));
    b_.setListener(&marker_);
    for (int64_t i = 0; i < k; ++i) {
      if (!varied_.contains(outputs[i])) continue;
      Value sens = grad_.getSensParam() ? grad_.getInputs()[n + i]
                                        : mindir::bprop::onesLike(b_, loc, outputs[i]);
      accumulate(outputs[i], sens);
    }
    for (Operation *op : llvm::reverse(forward))
      if (active_.contains(op) && failed(backward(op))) return failure();

    SmallVector<Value> results(outputs);
    for (Operation *placeholder : placeholders) {
      Value arg = placeholder->getResult(0);
      Value g = adjoints_.lookup(arg);
      results.push_back(g ? g : mindir::bprop::zerosLike(b_, loc, arg));
    }
    grad_->replaceAllUsesWith(results);
    grad_->erase();
    for (Operation *placeholder : placeholders) {
      placeholder->getResult(0).replaceAllUsesWith(placeholder->getOperand(0));
      placeholder->erase();
    }
    return success();
  }

 private:
  // Varied: depends on a wrt input (forward sweep). Useful: a differentiated
  // output depends on it (backward sweep). Active = both, float results only.
  void markActive(ArrayRef<Operation *> forward, ArrayRef<Value> differentiated) {
    for (Operation *op : forward) {
      if (isa<mindir::StopGradientOp>(op)) continue;
      bool varied = llvm::any_of(op->getOperands(), [&](Value v) { return varied_.contains(v); });
      if (!varied) continue;
      for (Value r : op->getResults())
        if (mindir::bprop::isFloatTensor(r)) varied_.insert(r);
    }
    DenseSet<Value> useful(differentiated.begin(), differentiated.end());
    for (Operation *op : llvm::reverse(forward)) {
      bool feeds = llvm::any_of(op->getResults(), [&](Value r) { return useful.contains(r) && varied_.contains(r); });
      if (!feeds) continue;
      active_.insert(op);
      for (Value v : op->getOperands()) useful.insert(v);
    }
  }

  LogicalResult backward(Operation *op) {
    if (auto ifOp = dyn_cast<mindir::IfOp>(op)) return backwardIf(ifOp);
    if (auto whileOp = dyn_cast<mindir::WhileOp>(op)) return backwardWhile(whileOp);
    Value dout = adjoints_.lookup(op->getResult(0));
    if (!dout) return success();  // (active, but its output's gradient was pruned)
    auto rule = dyn_cast<mindir::BpropOpInterface>(op);
    if (!rule || op->getNumResults() != 1)
      return op->emitError() << op->getName() << " has no gradient rule, but a differentiated output depends "
                                                 "on it through a differentiated input";
    SmallVector<Value> dins;
    rule.buildBprop(b_, dout, dins);
    if (dins.size() != op->getNumOperands())
      return op->emitError() << "the gradient rule of " << op->getName() << " returned " << dins.size()
                             << " adjoints for " << op->getNumOperands() << " operands";
    for (auto [operand, din] : llvm::zip(op->getOperands(), dins)) {
      if (!din || !varied_.contains(operand)) continue;
      if (din.getType() != operand.getType())
        return op->emitError() << "the gradient rule of " << op->getName() << " returned an adjoint of type "
                               << din.getType() << " for an operand of type " << operand.getType();
      accumulate(operand, din);
    }
    return success();
  }

  // The adjoint of an If is an If on the same predicate whose branches are the
  // branches' adjoints: each branch becomes a private function (its float
  // outputs), and a mindir.Grad of it (sensitivities = the result adjoints,
  // wrt = the varied float inputs) sits in the matching adjoint branch. The
  // pass's loop expands those Grad ops next, so branches nest to any depth.
  LogicalResult backwardIf(mindir::IfOp op) {
    Location loc = op.getLoc();
    SmallVector<int64_t> diffOutputs, wrt;
    for (OpResult r : op->getResults())
      if (mindir::bprop::isFloatTensor(r)) diffOutputs.push_back(r.getResultNumber());
    for (auto [i, x] : llvm::enumerate(op.getInputs()))
      if (varied_.contains(x) && mindir::bprop::isFloatTensor(x)) wrt.push_back(i);
    if (diffOutputs.empty() || wrt.empty()) return success();
    SmallVector<Value> inputs(op.getInputs());
    for (int64_t i : diffOutputs) {
      Value dout = adjoints_.lookup(op.getResult(i));
      inputs.push_back(dout ? dout : mindir::bprop::zerosLike(b_, loc, op.getResult(i)));
    }
    SmallVector<Type> gradTypes;
    for (int64_t w : wrt) gradTypes.push_back(op.getInputs()[w].getType());
    auto adjoint = b_.create<mindir::IfOp>(loc, gradTypes, op.getPred(), inputs);
    for (auto [from, to] : {std::pair{&op.getThenBranch(), &adjoint.getThenBranch()},
                            std::pair{&op.getElseBranch(), &adjoint.getElseBranch()}})
      branchAdjoint(loc, *from, *to, diffOutputs, wrt, TypeRange(ValueRange(inputs).getTypes()));
    for (auto [w, g] : llvm::zip(wrt, adjoint.getResults())) accumulate(op.getInputs()[w], g);
    return success();
  }

  // `to`'s single block: (x..., dout...) -> the gradients of `from` w.r.t. x[wrt].
  void branchAdjoint(Location loc, Region &from, Region &to, ArrayRef<int64_t> diffOutputs, ArrayRef<int64_t> wrt,
                     TypeRange argTypes) {
    func::FuncOp func = functionOf(symbols_, loc, from, diffOutputs);
    OpBuilder::InsertionGuard guard(b_);
    Block *block = b_.createBlock(&to, to.end(), argTypes, SmallVector<Location>(argTypes.size(), loc));
    b_.create<mindir::YieldOp>(loc, gradOf(b_, loc, func, block->getArguments(), wrt));
  }

  // The adjoint of a While, by recompute (no per-iteration storage): count the
  // iterations N; then for k = N-1 .. 0, rebuild the state at iteration k by
  // running body k times from the initial values, and pull the carried
  // adjoint back through body there (a Grad of body, expanded next). O(N^2)
  // body runs. Every float carried value takes part: one not varied at entry
  // may become varied inside the loop.
  LogicalResult backwardWhile(mindir::WhileOp op) {
    Location loc = op.getLoc();
    SmallVector<int64_t> floats;
    for (auto [i, v] : llvm::enumerate(op.getInputs()))
      if (mindir::bprop::isFloatTensor(v)) floats.push_back(i);
    if (floats.empty() || llvm::none_of(floats, [&](int64_t i) { return varied_.contains(op.getInputs()[i]); }))
      return success();
    Region &cond = op.getCond(), &body = op.getBody();
    auto count = [&](OpBuilder &b, int64_t v) { return mindir::bprop::splat(b, loc, RankedTensorType::get({}, b.getI64Type()), v); };
    SmallVector<Value> inits{count(b_, 0)};
    llvm::append_range(inits, op.getInputs());
    auto counter = buildWhile(b_, loc, inits,
        [&](OpBuilder &b, ValueRange a) { return inlineGraph(b, cond, a.drop_front()).front(); },
        [&](OpBuilder &b, ValueRange a) {
          SmallVector<Value> next{b.create<mindir::AddOp>(loc, a[0], count(b, 1))};
          llvm::append_range(next, inlineGraph(b, body, a.drop_front()));
          return next;
        });
    func::FuncOp step = functionOf(symbols_, loc, body, floats);
    size_t f = floats.size();
    SmallVector<Value> reverseInits{b_.create<mindir::SubOp>(loc, counter.getResult(0), count(b_, 1))};
    for (int64_t i : floats) {
      Value dout = adjoints_.lookup(op.getResult(i));
      reverseInits.push_back(dout ? dout : mindir::bprop::zerosLike(b_, loc, op.getResult(i)));
    }
    llvm::append_range(reverseInits, op.getInputs());
    auto reverse = buildWhile(b_, loc, reverseInits,
        [&](OpBuilder &b, ValueRange a) { return b.create<mindir::GreaterEqualOp>(loc, a[0], count(b, 0)).getResult(); },
        [&](OpBuilder &b, ValueRange a) {
          Value k = a[0];
          ValueRange dv = a.slice(1, f), v0 = a.drop_front(1 + f);
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
    for (size_t j = 0; j < f; ++j)
      if (varied_.contains(op.getInputs()[floats[j]])) accumulate(op.getInputs()[floats[j]], reverse.getResult(1 + j));
    return success();
  }

  // A value used several times gets the sum of its uses' adjoints.
  void accumulate(Value v, Value adjoint) {
    Value &slot = adjoints_[v];
    slot = slot ? b_.create<mindir::AddOp>(adjoint.getLoc(), slot, adjoint).getResult() : adjoint;
  }

  // Tags every op the backward builds, for msjit-rematerialize.
  struct BackwardMarker : OpBuilder::Listener {
    void notifyOperationInserted(Operation *op) override {
      op->setAttr(kBackwardAttr, UnitAttr::get(op->getContext()));
    }
  } marker_;
  mindir::GradOp grad_;
  func::FuncOp callee_;
  SymbolTable &symbols_;
  OpBuilder b_;  // before the Grad op: clones, then the backward, land in order
  DenseSet<Value> varied_;
  DenseSet<Operation *> active_;
  DenseMap<Value, Value> adjoints_;
};

struct Autodiff : impl::AutodiffBase<Autodiff> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Innermost first: a body is differentiated only once its own Grad ops
    // (grad of grad, grad inside a differentiated function) are expanded.
    while (true) {
      mindir::GradOp next;
      module.walk([&](mindir::GradOp grad) {
        auto callee = symbols.lookup<func::FuncOp>(grad.getCallee());
        bool ready = callee && callee.getBody().walk([](mindir::GradOp) { return WalkResult::interrupt(); })
                                   .wasInterrupted() == false;
        if (ready) {
          next = grad;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (!next) break;
      if (failed(GradExpansion(next, symbols.lookup<func::FuncOp>(next.getCallee()), symbols).run()))
        return signalPassFailure();
    }
    bool leftover = module.walk([](mindir::GradOp grad) {
      grad.emitError("Grad callee '") << grad.getCallee() << "' is missing or recursive";
      return WalkResult::interrupt();
    }).wasInterrupted();
    if (leftover) return signalPassFailure();
    // Bodies are inlined now; StopGradient has done its job and is the identity.
    for (func::FuncOp func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPrivate() && func.getName().startswith("grad_body_")) func.erase();
    module.walk([](mindir::StopGradientOp op) {
      op.getResult().replaceAllUsesWith(op.getOperand());
      op.erase();
    });
    // Rules build every operand's adjoint; those nobody asked for (a Conv2D input that is
    // not differentiated, say) are dead now and must not run, even at O0. Nested blocks
    // (If/While regions) first: a region left empty of uses may make its op dead.
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      SmallVector<Block *> blocks;
      func.walk<WalkOrder::PreOrder>([&](Block *block) { blocks.push_back(block); });
      for (Block *block : llvm::reverse(blocks))
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
          if (isOpTriviallyDead(&op)) op.erase();
    }
  }
};

}  // namespace
}  // namespace msjit::passes
