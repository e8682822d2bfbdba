//===- Importer.cpp - MindIR ModelProto -> mindir dialect -----------------===//
//
// The importer trusts nothing in the proto: names, references, cycles, dtypes
// and dims are checked here, op semantics by each op's type rule. Every
// failure names the node and the user's source line.
//
//===----------------------------------------------------------------------===//

#include "ir/Importer.h"

#include "ir/Dtypes.h"
#include "ir/MindirOps.h"
#include "ir/ProtoUtil.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

namespace msjit::ir {
namespace {

constexpr const char *kIrVersion = "msjit-mindir-1";

struct ImportError {
  std::string message;
};

// What one import shares across the main graph and its nested Grad bodies.
struct ImportBudget {
  const ShapeLimits &limits;
  int bodies = 0;      // Grad bodies imported so far (their function names)
  int64_t nodes = 0;   // nodes seen so far, all graphs
};

class GraphImporter {
 public:
  // `depth`: 0 for the main graph, n for a graph nested n deep (Grad body, If
  // branch, While cond/body); `owner`: what holds it ("a Grad node").
  GraphImporter(mlir::MLIRContext &ctx, mlir::ModuleOp module, const mindir::GraphProto &graph,
                ImportBudget &budget, int depth, std::string owner = "")
      : ctx_(ctx), module_(module), graph_(graph), builder_(&ctx), budget_(budget), depth_(depth),
        owner_(std::move(owner)) {}

  // The graph as `func.func @name`: public `main` (with a C interface), or a
  // private Grad body, which takes no parameters.
  mlir::func::FuncOp run(const std::string &name, bool isMain) {
    llvm::SmallVector<mlir::Type> argTypes;
    std::vector<const mindir::ValueInfoProto *> args = graphArgs(isMain, argTypes);
    builder_.setInsertionPointToEnd(module_.getBody());
    auto func = builder_.create<mlir::func::FuncOp>(
        builder_.getUnknownLoc(), name, builder_.getFunctionType(argTypes, {}));
    if (isMain) func->setAttr("llvm.emit_c_interface", builder_.getUnitAttr());
    else func.setPrivate();
    llvm::SmallVector<mlir::Value> results = importInto(func.addEntryBlock(), args);
    builder_.create<mlir::func::ReturnOp>(builder_.getUnknownLoc(), results);
    func.setFunctionType(builder_.getFunctionType(argTypes, mlir::ValueRange(results).getTypes()));
    return func;
  }

  // The graph as the single block of `region` (an If branch, a While cond or
  // body), ending in mindir.Yield; its inputs are the block's arguments.
  void runInRegion(mlir::Region &region) {
    llvm::SmallVector<mlir::Type> argTypes;
    std::vector<const mindir::ValueInfoProto *> args = graphArgs(/*isMain=*/false, argTypes);
    mlir::Block *block = new mlir::Block();
    region.push_back(block);
    for (mlir::Type t : argTypes) block->addArgument(t, builder_.getUnknownLoc());
    llvm::SmallVector<mlir::Value> results = importInto(block, args);
    builder_.create<mlir::mindir::YieldOp>(builder_.getUnknownLoc(), results);
  }

 private:
  // The graph's inputs (then, for main, its parameters) and their types. A
  // nested graph (Grad body, If branch, While cond/body) lists no parameters.
  std::vector<const mindir::ValueInfoProto *> graphArgs(bool isMain, llvm::SmallVectorImpl<mlir::Type> &types) {
    budget_.nodes += graph_.node_size();
    if (std::string e = nodeCountError(budget_.nodes, budget_.limits); !e.empty()) fail(e);
    std::vector<const mindir::ValueInfoProto *> args;
    for (const auto &v : graph_.input()) args.push_back(&v);
    if (!isMain && graph_.parameter_size() > 0)
      fail("the body of " + owner_ + " lists parameters; pass them as body inputs");
    for (const auto &v : graph_.parameter()) args.push_back(&v);
    for (const auto *v : args) types.push_back(tensorType(v->dtype(), v->dims(), "graph input '" + v->name() + "'"));
    return args;
  }

  // Imports the nodes into `entry` (whose arguments are `args`); returns the graph outputs.
  llvm::SmallVector<mlir::Value> importInto(mlir::Block *entry, const std::vector<const mindir::ValueInfoProto *> &args) {
    for (size_t i = 0; i < args.size(); ++i) define(args[i]->name(), entry->getArgument(i), "graph input");
    builder_.setInsertionPointToEnd(entry);
    for (int index : topologicalOrder()) importNode(graph_.node(index));
    llvm::SmallVector<mlir::Value> results;
    if (graph_.output_size() == 0) fail("graph has no outputs");
    for (const auto &out : graph_.output()) {
      auto it = values_.find(out.name());
      if (it == values_.end()) fail("graph output '" + out.name() + "' is not produced by any node");
      results.push_back(it->second);
    }
    return results;
  }

  [[noreturn]] void fail(const std::string &message) { throw ImportError{message}; }

  // `what` names the value in messages: "graph input 'x'", "node ... tensor attribute 'value'".
  mlir::RankedTensorType tensorType(mindir::DataType dtype, const google::protobuf::RepeatedField<int64_t> &dims,
                                    const std::string &what) {
    mlir::Type elem = toMlirType(dtype, &ctx_);
    if (!elem) fail(what + " has an unsupported dtype");
    if (std::string e = dimsError(dims, budget_.limits); !e.empty()) fail(what + " " + e);
    return mlir::RankedTensorType::get(llvm::SmallVector<int64_t>(dims.begin(), dims.end()), elem);
  }

  // An op's inferred result types within the limits: a type rule may build a
  // huge shape from attributes (Tile multiples, BroadcastTo shape, ...).
  void checkResultTypes(const mindir::NodeProto &node, mlir::TypeRange types) {
    for (mlir::Type t : types) {
      auto ranked = t.dyn_cast<mlir::RankedTensorType>();
      if (!ranked) fail(nodeRef(node) + ": a result is not a ranked tensor");
      if (std::string e = dimsError(ranked.getShape(), budget_.limits); !e.empty())
        fail(nodeRef(node) + ": result " + e);
    }
  }

  void define(const std::string &name, mlir::Value value, const std::string &what) {
    if (name.empty()) fail(what + " has an empty name");
    if (!values_.try_emplace(name, value).second) fail(what + " redefines value '" + name + "'");
  }

  // DFS order so nodes may arrive in any order; a back edge is a cycle. The
  // stack is explicit: a 100,000-node chain must not overflow the C++ stack.
  std::vector<int> topologicalOrder() {
    llvm::StringMap<int> producer;
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto &node = graph_.node(i);
      if (node.name().empty()) fail("node #" + std::to_string(i) + " has no name");
      for (const auto &out : node.output())
        if (!producer.try_emplace(out, i).second || values_.count(out))
          fail(nodeRef(node) + ": output '" + out + "' is defined more than once");
    }
    enum State : char { kNew, kVisiting, kDone };
    std::vector<int> order;
    std::vector<State> state(graph_.node_size(), kNew);
    std::vector<std::pair<int, int>> stack;  // (node, index of its next input to visit)
    for (int root = 0; root < graph_.node_size(); ++root) {
      if (state[root] != kNew) continue;
      state[root] = kVisiting;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        auto &[i, next] = stack.back();
        const auto &node = graph_.node(i);
        if (next == node.input_size()) {
          state[i] = kDone;
          order.push_back(i);
          stack.pop_back();
          continue;
        }
        const std::string &in = node.input(next++);
        auto it = producer.find(in);
        if (it == producer.end()) {
          if (!values_.count(in))
            fail(nodeRef(node) + ": input '" + in + "' is not defined by any node or graph input");
          continue;
        }
        int p = it->second;
        if (state[p] == kVisiting) fail(nodeRef(graph_.node(p)) + ": the graph has a cycle through this node");
        if (state[p] == kNew) {
          state[p] = kVisiting;
          stack.push_back({p, 0});  // invalidates i and next: they are not used after this
        }
      }
    }
    return order;
  }

  mlir::Attribute convertTensor(const mindir::NodeProto &node, const mindir::AttributeProto &a) {
    const mindir::TensorProto &t = a.t();
    std::string what = nodeRef(node) + ": tensor attribute '" + a.name() + "'";
    auto type = tensorType(t.dtype(), t.dims(), what);
    int64_t bytes = 0;
    if (!checkedBytes(t.dims(), dtypeBytes(t.dtype()), bytes))  // within limits, so only a safeguard
      fail(what + " has more bytes than fit in 64 bits");
    if (static_cast<int64_t>(t.raw_data().size()) != bytes)
      fail(what + " has " + std::to_string(t.raw_data().size()) + " bytes of data, expected " + std::to_string(bytes));
    if (t.dtype() == mindir::DT_BOOL) {
      llvm::SmallVector<bool> bits(t.raw_data().begin(), t.raw_data().end());
      return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
    }
    return mlir::DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(t.raw_data().data(), t.raw_data().size()));
  }

  mlir::Attribute convertAttribute(const mindir::NodeProto &node, const mindir::AttributeProto &a) {
    using A = mindir::AttributeProto;
    switch (a.value_case()) {
      case A::kI: return builder_.getI64IntegerAttr(a.i());
      case A::kF: return builder_.getF64FloatAttr(a.f());
      case A::kS: return builder_.getStringAttr(a.s());
      case A::kB: return builder_.getBoolAttr(a.b());
      case A::kT: return convertTensor(node, a);
      case A::kInts:
        return builder_.getDenseI64ArrayAttr(
            llvm::SmallVector<int64_t>(a.ints().values().begin(), a.ints().values().end()));
      case A::kFloats:
        return builder_.getDenseF64ArrayAttr(
            llvm::SmallVector<double>(a.floats().values().begin(), a.floats().values().end()));
      case A::kDtype: {
        mlir::Type t = toMlirType(a.dtype(), &ctx_);
        if (!t) fail(nodeRef(node) + ": attribute '" + a.name() + "' names an unsupported dtype");
        return mlir::TypeAttr::get(t);
      }
      default: fail(nodeRef(node) + ": attribute '" + a.name() + "' has no value");
    }
  }

  // A node without a source file gets no file:line (as nodeRef), rather than "-:0".
  mlir::Location locationOf(const mindir::NodeProto &node) {
    mlir::StringAttr name = builder_.getStringAttr(node.name());
    if (node.location().file().empty()) return mlir::NameLoc::get(name);
    return mlir::NameLoc::get(name, mlir::FileLineColLoc::get(&ctx_, node.location().file(), node.location().line(), 0));
  }

  // Operands and attributes of `node` (a Grad node's body excepted) into `state`. Only the
  // attributes the op declares: any other (a misspelled one) would be carried along unused.
  void addOperandsAndAttributes(const mindir::NodeProto &node, mlir::OperationState &state) {
    for (const auto &in : node.input()) state.operands.push_back(values_.lookup(in));
    auto declared = state.name.getAttributeNames();
    for (const auto &a : node.attribute()) {
      if (a.name().empty() || state.attributes.get(a.name()))
        fail(nodeRef(node) + ": attribute names must be non-empty and unique");
      if (a.value_case() == mindir::AttributeProto::kG) {
        if (!isGraphAttribute(node.op_type(), a.name()))
          fail(nodeRef(node) + ": only Grad 'body', If 'then_branch'/'else_branch' and While 'cond'/'body' "
                               "attributes may hold a graph");
        continue;
      }
      if (!llvm::is_contained(declared, builder_.getStringAttr(a.name())))
        fail(nodeRef(node) + ": " + node.op_type() + " has no attribute '" + a.name() + "'");
      state.addAttribute(a.name(), convertAttribute(node, a));
    }
  }

  void importNode(const mindir::NodeProto &node) {
    if (node.op_type() == "Grad") return importGrad(node);
    if (node.op_type() == "If") return importRegionOp(node, {"then_branch", "else_branch"});
    if (node.op_type() == "While") return importRegionOp(node, {"cond", "body"});
    std::string opName = "mindir." + node.op_type();
    auto registered = mlir::RegisteredOperationName::lookup(opName, &ctx_);
    if (!registered) fail(nodeRef(node) + ": unknown op '" + node.op_type() + "'");
    if (node.output_size() != 1)
      fail(nodeRef(node) + ": " + node.op_type() + " produces exactly one output, node lists " +
           std::to_string(node.output_size()));

    mlir::Location loc = locationOf(node);
    mlir::OperationState state(loc, *registered);
    addOperandsAndAttributes(node, state);
    auto *infer = registered->getInterface<mlir::InferTypeOpInterface>();
    mlir::DictionaryAttr attrs = state.attributes.getDictionary(&ctx_);
    // inferReturnTypes reports its own diagnostic (collected by importModel).
    if (!infer || mlir::failed(infer->inferReturnTypes(&ctx_, loc, state.operands, attrs, {},
                                                       state.types)))
      throw ImportError{};
    checkResultTypes(node, state.types);
    mlir::Operation *op = builder_.create(state);
    define(node.output(0), op->getResult(0), nodeRef(node));
  }

  // A Grad node: its body becomes a private function, the node a mindir.Grad
  // calling it; results are the body's outputs then one gradient per `wrt`
  // input (GradOp::verifySymbolUses checks the rest against the callee).
  void importGrad(const mindir::NodeProto &node) {
    const mindir::GraphProto *body = nullptr;
    for (const auto &a : node.attribute())
      if (a.name() == "body" && a.value_case() == mindir::AttributeProto::kG) body = &a.g();
    if (!body) fail(nodeRef(node) + ": a Grad node needs a 'body' graph attribute");
    if (std::string e = graphDepthError(depth_ + 1, budget_.limits); !e.empty()) fail(nodeRef(node) + ": " + e);
    std::string name = "grad_body_" + std::to_string(budget_.bodies++);
    mlir::func::FuncOp callee;
    {
      mlir::OpBuilder::InsertionGuard guard(builder_);
      callee = GraphImporter(ctx_, module_, *body, budget_, depth_ + 1, "a Grad node").run(name, /*isMain=*/false);
    }
    mlir::OperationState state(locationOf(node), mlir::mindir::GradOp::getOperationName());
    addOperandsAndAttributes(node, state);
    state.addAttribute("callee", mlir::FlatSymbolRefAttr::get(&ctx_, name));
    auto wrt = state.attributes.get("wrt").dyn_cast_or_null<mlir::DenseI64ArrayAttr>();
    if (!wrt) fail(nodeRef(node) + ": a Grad node needs a 'wrt' ints attribute");
    state.types.assign(callee.getResultTypes().begin(), callee.getResultTypes().end());
    for (int64_t w : wrt.asArrayRef()) {
      if (w < 0 || w >= static_cast<int64_t>(callee.getNumArguments()))
        fail(nodeRef(node) + ": wrt position " + std::to_string(w) + " is out of range for a body of " +
             std::to_string(callee.getNumArguments()) + " inputs");
      state.types.push_back(callee.getArgumentTypes()[w]);
    }
    if (node.output_size() != static_cast<int>(state.types.size()))
      fail(nodeRef(node) + ": Grad produces " + std::to_string(state.types.size()) +
           " outputs (body outputs, then one gradient per wrt input), node lists " +
           std::to_string(node.output_size()));
    mlir::Operation *op = builder_.create(state);
    for (int i = 0; i < node.output_size(); ++i) define(node.output(i), op->getResult(i), nodeRef(node));
  }

  // An If or While node: each graph attribute in `regions` (in the op's region
  // order) becomes one of its regions, inline. Result types are the graphs'
  // (If: the then_branch's; While: the carried values'); the op is verified at
  // once so a mismatch is reported here, at this node.
  void importRegionOp(const mindir::NodeProto &node, std::initializer_list<const char *> regions) {
    if (std::string e = graphDepthError(depth_ + 1, budget_.limits); !e.empty()) fail(nodeRef(node) + ": " + e);
    mlir::OperationState state(locationOf(node), "mindir." + node.op_type());
    addOperandsAndAttributes(node, state);
    for (const char *name : regions) {
      const mindir::GraphProto *graph = nullptr;
      for (const auto &a : node.attribute())
        if (a.name() == name && a.value_case() == mindir::AttributeProto::kG) graph = &a.g();
      if (!graph) fail(nodeRef(node) + ": " + node.op_type() + " needs a '" + name + "' graph attribute");
      mlir::OpBuilder::InsertionGuard guard(builder_);
      GraphImporter(ctx_, module_, *graph, budget_, depth_ + 1,
                    (node.op_type() == "If" ? "an If node" : "a While node")).runInRegion(*state.addRegion());
    }
    if (node.op_type() == "If") {
      auto *yield = state.regions[0]->front().getTerminator();
      state.types.assign(yield->getOperandTypes().begin(), yield->getOperandTypes().end());
    } else {
      for (mlir::Value v : state.operands) state.types.push_back(v.getType());
    }
    if (node.output_size() != static_cast<int>(state.types.size()))
      fail(nodeRef(node) + ": " + node.op_type() + " produces " + std::to_string(state.types.size()) +
           " outputs, node lists " + std::to_string(node.output_size()));
    mlir::Operation *op = builder_.create(state);
    if (mlir::failed(mlir::verify(op))) throw ImportError{};  // the verifier's diagnostic names the node
    for (int i = 0; i < node.output_size(); ++i) define(node.output(i), op->getResult(i), nodeRef(node));
  }

  static bool isGraphAttribute(const std::string &op, const std::string &name) {
    return (op == "Grad" && name == "body") || (op == "If" && (name == "then_branch" || name == "else_branch")) ||
           (op == "While" && (name == "cond" || name == "body"));
  }

  mlir::MLIRContext &ctx_;
  mlir::ModuleOp module_;
  const mindir::GraphProto &graph_;
  mlir::OpBuilder builder_;
  ImportBudget &budget_;
  int depth_;
  std::string owner_;
  llvm::StringMap<mlir::Value> values_;
};

}  // namespace

void registerDialects(mlir::MLIRContext &ctx) {
  ctx.getOrLoadDialect<mlir::mindir::MindirDialect>();
  ctx.getOrLoadDialect<mlir::func::FuncDialect>();
}

std::string describeLocation(mlir::Location loc) {
  if (auto name = loc.dyn_cast<mlir::NameLoc>()) {
    std::string s = "node '" + name.getName().str() + "'";
    if (auto file = name.getChildLoc().dyn_cast<mlir::FileLineColLoc>())
      if (!file.getFilename().getValue().empty())
        s += " (" + file.getFilename().getValue().str() + ":" + std::to_string(file.getLine()) + ")";
    return s;
  }
  if (auto fused = loc.dyn_cast<mlir::FusedLoc>())
    for (mlir::Location inner : fused.getLocations())
      if (std::string s = describeLocation(inner); !s.empty()) return s;
  if (auto file = loc.dyn_cast<mlir::FileLineColLoc>())
    return file.getFilename().getValue().str() + ":" + std::to_string(file.getLine());
  return "";
}

mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &ctx,
                                              const mindir::ModelProto &model,
                                              std::string &error,
                                              const ShapeLimits &limits) {
  registerDialects(ctx);
  std::vector<std::string> diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    std::string where = describeLocation(d.getLocation());
    diagnostics.push_back(where.empty() ? d.str() : where + ": " + d.str());
    return mlir::success();
  });
  auto firstError = [&](const std::string &fallback) {
    error = diagnostics.empty() ? fallback : diagnostics.front();
    return nullptr;
  };
  if (model.ir_version() != kIrVersion)
    return firstError("unsupported ir_version '" + model.ir_version() + "', expected '" + kIrVersion + "'");
  if (!model.has_graph()) return firstError("model has no graph");

  // Owned from the start so a failure part-way frees what was built.
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  try {
    ImportBudget budget{limits};
    GraphImporter(ctx, *module, model.graph(), budget, /*depth=*/0).run("main", /*isMain=*/true);
  } catch (const ImportError &e) {
    return firstError(e.message.empty() ? "invalid graph" : e.message);
  }
  if (mlir::failed(mlir::verify(*module))) return firstError("the imported graph failed verification");
  return module;
}

}  // namespace msjit::ir
