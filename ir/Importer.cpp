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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace msjit::ir {
namespace {

constexpr const char *kIrVersion = "msjit-mindir-1";

struct ImportError {
  std::string message;
};

std::string nodeRef(const mindir::NodeProto &node) {
  std::string s = "node '" + node.name() + "'";
  if (!node.location().file().empty())
    s += " (" + node.location().file() + ":" + std::to_string(node.location().line()) + ")";
  return s;
}

class GraphImporter {
 public:
  GraphImporter(mlir::MLIRContext &ctx, const mindir::GraphProto &graph)
      : ctx_(ctx), graph_(graph), builder_(&ctx) {}

  mlir::OwningOpRef<mlir::ModuleOp> run() {
    // Owned from the start so a failure part-way frees what was built.
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(builder_.getUnknownLoc());
    llvm::SmallVector<mlir::Type> argTypes;
    std::vector<const mindir::ValueInfoProto *> args;
    for (const auto &v : graph_.input()) args.push_back(&v);
    for (const auto &v : graph_.parameter()) args.push_back(&v);
    for (const auto *v : args) argTypes.push_back(tensorType(*v, "graph input"));

    builder_.setInsertionPointToEnd(module->getBody());
    auto func = builder_.create<mlir::func::FuncOp>(
        builder_.getUnknownLoc(), "main", builder_.getFunctionType(argTypes, {}));
    func->setAttr("llvm.emit_c_interface", builder_.getUnitAttr());
    mlir::Block *entry = func.addEntryBlock();
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
    builder_.create<mlir::func::ReturnOp>(builder_.getUnknownLoc(), results);
    func.setFunctionType(builder_.getFunctionType(argTypes, mlir::ValueRange(results).getTypes()));
    return module;
  }

 private:
  [[noreturn]] void fail(const std::string &message) { throw ImportError{message}; }

  mlir::RankedTensorType tensorType(const mindir::ValueInfoProto &v, const char *what) {
    mlir::Type elem = toMlirType(v.dtype(), &ctx_);
    if (!elem) fail(std::string(what) + " '" + v.name() + "' has an unsupported dtype");
    for (int64_t d : v.dims())
      if (d < 0) fail(std::string(what) + " '" + v.name() + "' has a negative dim");
    return mlir::RankedTensorType::get(llvm::SmallVector<int64_t>(v.dims().begin(), v.dims().end()), elem);
  }

  void define(const std::string &name, mlir::Value value, const std::string &what) {
    if (name.empty()) fail(what + " has an empty name");
    if (!values_.try_emplace(name, value).second) fail(what + " redefines value '" + name + "'");
  }

  // Kahn-free DFS order so nodes may arrive in any order; a back edge is a cycle.
  std::vector<int> topologicalOrder() {
    llvm::StringMap<int> producer;
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto &node = graph_.node(i);
      if (node.name().empty()) fail("node #" + std::to_string(i) + " has no name");
      for (const auto &out : node.output())
        if (!producer.try_emplace(out, i).second || values_.count(out))
          fail(nodeRef(node) + ": output '" + out + "' is defined more than once");
    }
    std::vector<int> order, state(graph_.node_size(), 0);  // 0 new, 1 visiting, 2 done
    std::function<void(int)> visit = [&](int i) {
      if (state[i] == 2) return;
      const auto &node = graph_.node(i);
      if (state[i] == 1) fail(nodeRef(node) + ": the graph has a cycle through this node");
      state[i] = 1;
      for (const auto &in : node.input()) {
        auto it = producer.find(in);
        if (it != producer.end()) visit(it->second);
        else if (!values_.count(in))
          fail(nodeRef(node) + ": input '" + in + "' is not defined by any node or graph input");
      }
      state[i] = 2;
      order.push_back(i);
    };
    for (int i = 0; i < graph_.node_size(); ++i) visit(i);
    return order;
  }

  mlir::Attribute convertTensor(const mindir::NodeProto &node, const mindir::TensorProto &t) {
    mindir::ValueInfoProto info;
    info.set_name(node.name());
    info.set_dtype(t.dtype());
    *info.mutable_dims() = t.dims();
    auto type = tensorType(info, "constant of");
    int64_t bytes = type.getNumElements() * dtypeBytes(t.dtype());
    if (static_cast<int64_t>(t.raw_data().size()) != bytes)
      fail(nodeRef(node) + ": tensor attribute has " + std::to_string(t.raw_data().size()) +
           " bytes of data, expected " + std::to_string(bytes));
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
      case A::kT: return convertTensor(node, a.t());
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

  void importNode(const mindir::NodeProto &node) {
    std::string opName = "mindir." + node.op_type();
    auto registered = mlir::RegisteredOperationName::lookup(opName, &ctx_);
    if (!registered) fail(nodeRef(node) + ": unknown op '" + node.op_type() + "'");
    if (node.output_size() != 1)
      fail(nodeRef(node) + ": " + node.op_type() + " produces exactly one output, node lists " +
           std::to_string(node.output_size()));

    mlir::Location loc = mlir::NameLoc::get(
        builder_.getStringAttr(node.name()),
        mlir::FileLineColLoc::get(&ctx_, node.location().file(), node.location().line(), 0));
    mlir::OperationState state(loc, *registered);
    for (const auto &in : node.input()) state.operands.push_back(values_.lookup(in));
    for (const auto &a : node.attribute()) {
      if (a.name().empty() || state.attributes.get(a.name()))
        fail(nodeRef(node) + ": attribute names must be non-empty and unique");
      state.addAttribute(a.name(), convertAttribute(node, a));
    }
    auto *infer = registered->getInterface<mlir::InferTypeOpInterface>();
    mlir::DictionaryAttr attrs = state.attributes.getDictionary(&ctx_);
    // inferReturnTypes reports its own diagnostic (collected by importModel).
    if (!infer || mlir::failed(infer->inferReturnTypes(&ctx_, loc, state.operands, attrs, {},
                                                       state.types)))
      throw ImportError{};
    mlir::Operation *op = builder_.create(state);
    define(node.output(0), op->getResult(0), nodeRef(node));
  }

  mlir::MLIRContext &ctx_;
  const mindir::GraphProto &graph_;
  mlir::OpBuilder builder_;
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
                                              std::string &error) {
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

  mlir::OwningOpRef<mlir::ModuleOp> module;
  try {
    module = GraphImporter(ctx, model.graph()).run();
  } catch (const ImportError &e) {
    return firstError(e.message.empty() ? "invalid graph" : e.message);
  }
  if (mlir::failed(mlir::verify(*module))) return firstError("the imported graph failed verification");
  return module;
}

}  // namespace msjit::ir
