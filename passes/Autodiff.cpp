//===- Autodiff.cpp - msjit-autodiff: reverse mode over mindir ------------===//
//
// Each mindir.Grad op is expanded in place: its callee's body is inlined (the
// forward), then a reverse sweep over the inlined ops builds the backward from
// each op's BpropOpInterface. Only *active* ops get a rule evaluated: those
// whose result depends on a differentiated input and feeds a differentiated
// output (dead-gradient pruning). The backward reads forward values directly,
// so the following CSE merges what both compute; whether a forward value is
// stored or recomputed for the backward is left to msjit-rematerialize (O1).
// If/While get region-op adjoints (RegionAdjoints.h) that hold new Grad ops,
// expanded by the same loop.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "ir/bprop/BpropUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "passes/Passes.h"
#include "passes/RegionAdjoints.h"

#define DEBUG_TYPE "msjit-autodiff"

namespace msjit::passes {

#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"

namespace {

using namespace mlir;

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

  // Region ops: their adjoints are region ops too (RegionAdjoints.h).
  LogicalResult backwardIf(mindir::IfOp op) {
    SmallVector<int64_t> diffOutputs, wrt;
    for (OpResult r : op->getResults())
      if (mindir::bprop::isFloatTensor(r)) diffOutputs.push_back(r.getResultNumber());
    for (auto [i, x] : llvm::enumerate(op.getInputs()))
      if (varied_.contains(x) && mindir::bprop::isFloatTensor(x)) wrt.push_back(i);
    if (diffOutputs.empty() || wrt.empty()) return success();
    SmallVector<Value> grads = ifAdjoint(b_, symbols_, op, diffOutputs, resultAdjoints(op, diffOutputs), wrt);
    for (auto [w, g] : llvm::zip(wrt, grads)) accumulate(op.getInputs()[w], g);
    return success();
  }

  LogicalResult backwardWhile(mindir::WhileOp op) {
    SmallVector<int64_t> floats;
    for (auto [i, v] : llvm::enumerate(op.getInputs()))
      if (mindir::bprop::isFloatTensor(v)) floats.push_back(i);
    if (llvm::none_of(floats, [&](int64_t i) { return varied_.contains(op.getInputs()[i]); })) return success();
    SmallVector<Value> grads = whileAdjoint(b_, symbols_, op, floats, resultAdjoints(op, floats));
    for (auto [i, g] : llvm::zip(floats, grads))
      if (varied_.contains(op.getInputs()[i])) accumulate(op.getInputs()[i], g);
    return success();
  }

  // The adjoints of `op`'s results at `positions`; zeros where none flowed back.
  SmallVector<Value> resultAdjoints(Operation *op, ArrayRef<int64_t> positions) {
    SmallVector<Value> douts;
    for (int64_t i : positions) {
      Value dout = adjoints_.lookup(op->getResult(i));
      douts.push_back(dout ? dout : mindir::bprop::zerosLike(b_, op->getLoc(), op->getResult(i)));
    }
    return douts;
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
