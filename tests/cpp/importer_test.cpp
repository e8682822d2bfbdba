// importer_test.cpp - MindIR -> mindir: good graphs verify, bad ones name the node.
#include <catch2/catch.hpp>

#include "ir/Importer.h"
#include "mlir/IR/MLIRContext.h"
#include "tests/cpp/hostile_models.h"
#include "tests/cpp/model_builder.h"

#include <chrono>
#include <functional>

using msjit::testing::ModelBuilder;
namespace mindir = msjit::mindir;

namespace {

std::string importError(const mindir::ModelProto &model, const msjit::ir::ShapeLimits &limits = {}) {
  mlir::MLIRContext ctx;
  std::string error;
  auto module = msjit::ir::importModel(ctx, model, error, limits);
  return module ? "" : error;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// A (4,) f32 input "x" through one node `op` with ints attributes `attrs`.
mindir::ModelProto oneOpModel(const std::string &op, std::vector<std::pair<std::string, std::vector<int64_t>>> attrs,
                              std::vector<int64_t> dims = {4}) {
  ModelBuilder b;
  b.input("x", dims);
  auto &n = b.node(op + "_1", op, {"x"});
  for (const auto &[name, values] : attrs) msjit::testing::setInts(n, name, values);
  b.output(op + "_1");
  return b.model();
}

constexpr int64_t k2to31 = int64_t(1) << 31, k2to32 = int64_t(1) << 32, k2to62 = int64_t(1) << 62;

std::string printed(const mindir::ModelProto &model) {
  mlir::MLIRContext ctx;
  std::string error, text;
  auto module = msjit::ir::importModel(ctx, model, error);
  REQUIRE(module);
  llvm::raw_string_ostream os(text);
  module->print(os);
  return os.str();
}

}  // namespace

TEST_CASE("a valid graph imports with inferred broadcast types", "[importer]") {
  ModelBuilder b;
  b.input("x", {4, 1, 3}).input("y", {2, 1});
  b.node("Add_1", "Add", {"x", "y"});
  b.output("Add_1");
  std::string ir = printed(b.model());
  CHECK(ir.find("mindir.Add") != std::string::npos);
  CHECK(ir.find("tensor<4x2x3xf32>") != std::string::npos);
}

TEST_CASE("nodes may arrive in any order", "[importer]") {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Exp_2", "Exp", {"Neg_1"});
  b.node("Neg_1", "Neg", {"x"});
  b.output("Exp_2");
  CHECK(importError(b.model()).empty());
}

TEST_CASE("an unknown op is reported with its node and source line", "[importer]") {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Frobnicate_1", "Frobnicate", {"x"});
  b.output("Frobnicate_1");
  std::string error = importError(b.model());
  CHECK(error.find("node 'Frobnicate_1' (model.py:1)") != std::string::npos);
  CHECK(error.find("unknown op 'Frobnicate'") != std::string::npos);
}

TEST_CASE("a cycle is reported naming a node on it", "[importer]") {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Add_1", "Add", {"x", "Mul_2"});
  b.node("Mul_2", "Mul", {"Add_1", "x"});
  b.output("Mul_2");
  std::string error = importError(b.model());
  CHECK(error.find("cycle") != std::string::npos);
  CHECK((error.find("'Add_1'") != std::string::npos || error.find("'Mul_2'") != std::string::npos));
}

TEST_CASE("dtype mismatch, bad shapes and bad attributes name the node", "[importer][verifier]") {
  SECTION("dtype mismatch") {
    ModelBuilder b;
    b.input("x", {2}).input("i", {2}, mindir::DT_INT32);
    b.node("Mul_1", "Mul", {"x", "i"});
    b.output("Mul_1");
    std::string error = importError(b.model());
    CHECK(error.find("node 'Mul_1'") != std::string::npos);
    CHECK(error.find("different dtypes") != std::string::npos);
  }
  SECTION("shapes that do not broadcast") {
    ModelBuilder b;
    b.input("x", {2, 3}).input("y", {4});
    b.node("Sub_1", "Sub", {"x", "y"});
    b.output("Sub_1");
    CHECK(importError(b.model()).find("not broadcastable") != std::string::npos);
  }
  SECTION("matmul inner dims") {
    ModelBuilder b;
    b.input("x", {2, 3}).input("y", {4, 5});
    b.node("MatMul_1", "MatMul", {"x", "y"});
    b.output("MatMul_1");
    CHECK(importError(b.model()).find("node 'MatMul_1'") != std::string::npos);
  }
  SECTION("float-only op on ints") {
    ModelBuilder b;
    b.input("i", {2}, mindir::DT_INT32);
    b.node("Exp_1", "Exp", {"i"});
    b.output("Exp_1");
    CHECK(importError(b.model()).find("floating-point") != std::string::npos);
  }
  SECTION("reshape to a different element count") {
    ModelBuilder b;
    b.input("x", {2, 3});
    auto &n = b.node("Reshape_1", "Reshape", {"x"});
    msjit::testing::setInts(n, "shape", {4});
    b.output("Reshape_1");
    CHECK(importError(b.model()).find("cannot reshape") != std::string::npos);
  }
  SECTION("reduce axes out of range") {
    ModelBuilder b;
    b.input("x", {2, 3});
    auto &n = b.node("ReduceSum_1", "ReduceSum", {"x"});
    msjit::testing::setInts(n, "axes", {2});
    msjit::testing::setBool(n, "keep_dims", false);
    b.output("ReduceSum_1");
    CHECK(importError(b.model()).find("axes") != std::string::npos);
  }
  SECTION("transpose perm is not a permutation") {
    ModelBuilder b;
    b.input("x", {2, 3});
    auto &n = b.node("Transpose_1", "Transpose", {"x"});
    msjit::testing::setInts(n, "perm", {0, 0});
    b.output("Transpose_1");
    CHECK(importError(b.model()).find("permutation") != std::string::npos);
  }
  SECTION("constant whose data does not match its dims") {
    ModelBuilder b;
    auto &n = b.node("Constant_1", "Constant", {});
    msjit::testing::setFloatTensor(n, "value", {3}, {1.f, 2.f});
    b.output("Constant_1");
    CHECK(importError(b.model()).find("node 'Constant_1'") != std::string::npos);
  }
}

TEST_CASE("malformed graphs are rejected with a reason", "[importer]") {
  SECTION("undefined input") {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Neg_1", "Neg", {"nope"});
    b.output("Neg_1");
    CHECK(importError(b.model()).find("input 'nope' is not defined") != std::string::npos);
  }
  SECTION("an output produced twice") {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Neg_1", "Neg", {"x"});
    b.node("Neg_1", "Exp", {"x"});
    b.output("Neg_1");
    CHECK(importError(b.model()).find("more than once") != std::string::npos);
  }
  SECTION("an unknown graph output") {
    ModelBuilder b;
    b.input("x", {2});
    b.output("y");
    CHECK(importError(b.model()).find("graph output 'y'") != std::string::npos);
  }
  SECTION("wrong ir_version") {
    ModelBuilder b;
    b.model().set_ir_version("onnx");
    CHECK(importError(b.model()).find("ir_version") != std::string::npos);
  }
  SECTION("negative dim") {
    ModelBuilder b;
    b.input("x", {-1});
    b.output("x");
    CHECK(importError(b.model()).find("negative dim") != std::string::npos);
  }
}

TEST_CASE("huge constants are refused before any byte count overflows", "[importer][limits]") {
  // 2^64 elements: the old byte count wrapped to 0 and matched the empty data.
  std::string error = importError(msjit::testing::constantModel({k2to32, k2to32}));
  CHECK(contains(error, "Constant_1"));
  CHECK(contains(error, "64 bits"));
  // 2^62 elements: no overflow, but far over the element limit.
  error = importError(msjit::testing::constantModel({k2to31, k2to31}));
  CHECK(contains(error, "Constant_1"));
  CHECK(contains(error, "over the limit"));
  // Within limits, the data size is still checked.
  CHECK(contains(importError(msjit::testing::constantModel({1024, 1024})), "expected 4194304"));
  CHECK(importError(msjit::testing::constantModel({2}, std::string(8, '\0'))).empty());
}

TEST_CASE("graph inputs are held to rank and element limits", "[importer][limits]") {
  ModelBuilder huge;
  huge.input("x", {k2to62, 4}).output("x");
  CHECK(contains(importError(huge.model()), "graph input 'x' has more elements than fit in 64 bits"));
  ModelBuilder deep;
  deep.input("x", std::vector<int64_t>(33, 1)).output("x");
  CHECK(contains(importError(deep.model()), "rank 33"));
  // An empty tensor with huge dims has strides past any limit.
  ModelBuilder empty;
  empty.input("x", {0, k2to62}).output("x");
  CHECK(contains(importError(empty.model()), "over the limit"));
  ModelBuilder fine;
  fine.input("x", std::vector<int64_t>(32, 1)).output("x");
  CHECK(importError(fine.model()).empty());
}

TEST_CASE("type rules refuse attribute values that overflow a shape", "[importer][limits]") {
  CHECK(contains(importError(oneOpModel("Tile", {{"multiples", {k2to62}}})), "overflow"));
  CHECK(contains(importError(oneOpModel("Tile", {{"multiples", {int64_t(1) << 40}}})), "node 'Tile_1' (model.py:1): result"));
  CHECK(contains(importError(oneOpModel("BroadcastTo", {{"shape", {k2to31, k2to31}}}, {1})), "node 'BroadcastTo_1' (model.py:1): result spans"));
  // 2^32 * 2^32 * 4 wraps to 0, which once matched an empty input's element count.
  CHECK(contains(importError(oneOpModel("Reshape", {{"shape", {k2to32, k2to32, 4}}}, {0})), "cannot reshape"));
  CHECK(contains(importError(oneOpModel("Reshape", {{"shape", {0, k2to62}}}, {0})), "over the limit"));
  // A stride past the dim takes one element; e - b + s - 1 used to overflow.
  CHECK(importError(oneOpModel("StridedSlice", {{"begin", {0}}, {"end", {4}}, {"strides", {INT64_MAX}}})).empty());
  CHECK(importError(oneOpModel("StridedSlice", {{"begin", {3}}, {"end", {-1}}, {"strides", {INT64_MIN}}})).empty());
  // Padding on both sides of a huge kernel: in + pad + pad used to overflow.
  auto pool = oneOpModel("MaxPool", {{"kernel", {2, INT64_MAX}}, {"stride", {1, 1}},
                                     {"pad", {0, 0, INT64_MAX - 1, INT64_MAX - 1}}}, {1, 1, 4, 4});
  CHECK(contains(importError(pool), "window does not fit"));
}

TEST_CASE("a 100,000-node chain imports without recursion, and maxNodes bounds it", "[importer][limits]") {
  auto chain = msjit::testing::chainModel(100000);
  auto start = std::chrono::steady_clock::now();
  CHECK(importError(chain).empty());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 20);
  msjit::ir::ShapeLimits limits;
  limits.maxNodes = 50000;
  CHECK(contains(importError(chain, limits), "more than 50000 nodes"));
}

TEST_CASE("a cycle through a long chain is found without recursion", "[importer][limits]") {
  auto chain = msjit::testing::chainModel(50000);
  chain.mutable_graph()->mutable_node(50000 - 1)->set_input(0, "Neg_50000");  // Neg_1 reads the last node
  std::string error = importError(chain);
  CHECK(contains(error, "cycle"));
}

TEST_CASE("Grad bodies nest up to maxGraphDepth", "[importer][limits]") {
  CHECK(importError(msjit::testing::nestedGradModel(2)).empty());
  CHECK(importError(msjit::testing::nestedGradModel(8)).empty());
  std::string error = importError(msjit::testing::nestedGradModel(9));
  CHECK(contains(error, "nested 9 deep"));
  CHECK(contains(error, "(model.py:"));
  msjit::ir::ShapeLimits limits;
  limits.maxGraphDepth = 1;
  CHECK(contains(importError(msjit::testing::nestedGradModel(2), limits), "nested 2 deep"));
  // Nodes of every body count toward maxNodes.
  limits = {};
  limits.maxNodes = 4;
  CHECK(importError(msjit::testing::nestedGradModel(4)).empty());
  CHECK(contains(importError(msjit::testing::nestedGradModel(4), limits), "more than 4 nodes"));
}

// ---- If / While regions (issue 12) ----

namespace {

using msjit::testing::setGraph;
using msjit::testing::setOutputs;

// A graph of one (dims) f32 input "a" returning op(a) (or "a" itself when op is empty).
mindir::GraphProto unaryGraph(const std::string &op, std::vector<int64_t> dims = {3}) {
  ModelBuilder g;
  g.input("a", dims);
  if (op.empty()) {
    g.output("a");
  } else {
    g.node(op + "_b", op, {"a"});
    g.output(op + "_b");
  }
  return g.model().graph();
}

// y = If(p, x) with the given branches, p of `predDims`.
mindir::ModelProto ifModel(const mindir::GraphProto &thenG, const mindir::GraphProto &elseG,
                           std::vector<int64_t> predDims = {}) {
  ModelBuilder b;
  b.input("p", predDims, mindir::DT_BOOL).input("x", {3});
  auto &n = b.node("If_1", "If", {"p", "x"});
  setGraph(n, "then_branch", thenG);
  setGraph(n, "else_branch", elseG);
  b.output("If_1");
  return b.model();
}

}  // namespace

TEST_CASE("If and While import as region ops", "[importer][control_flow]") {
  std::string text = printed(ifModel(unaryGraph("Exp"), unaryGraph("Neg")));
  CHECK(contains(text, "mindir.If"));
  CHECK(contains(text, "mindir.Exp"));
  CHECK(contains(text, "mindir.Yield"));
  CHECK(!contains(text, "func.func private"));  // regions are inline, unlike Grad bodies
}

TEST_CASE("If/While type errors name the node", "[importer][control_flow][verifier]") {
  std::string error = importError(ifModel(unaryGraph("Exp"), unaryGraph("", {4})));
  CHECK(contains(error, "node 'If_1' (model.py:1)"));
  CHECK(contains(error, "else_branch takes (tensor<4xf32>), the node passes (tensor<3xf32>)"));
  error = importError(ifModel(unaryGraph("Exp"), unaryGraph("Neg"), {2}));
  CHECK(contains(error, "node 'If_1'"));
  CHECK(contains(error, "predicate must be a bool scalar"));

  ModelBuilder b;
  b.input("x", {3});
  auto &w = b.node("While_1", "While", {"x"});
  setGraph(w, "cond", unaryGraph("Exp"));
  setGraph(w, "body", unaryGraph("Neg"));
  b.output("While_1");
  error = importError(b.model());
  CHECK(contains(error, "node 'While_1' (model.py:1)"));
  CHECK(contains(error, "cond must return one bool scalar"));

  mindir::ModelProto missing = ifModel(unaryGraph("Exp"), unaryGraph("Neg"));
  missing.mutable_graph()->mutable_node(0)->mutable_attribute()->RemoveLast();
  CHECK(contains(importError(missing), "If needs a 'else_branch' graph attribute"));

  mindir::ModelProto outputs = ifModel(unaryGraph("Exp"), unaryGraph("Neg"));
  setOutputs(*outputs.mutable_graph()->mutable_node(0), {"y1", "y2"});
  CHECK(contains(importError(outputs), "If produces 1 outputs, node lists 2"));

  mindir::ModelProto misplaced = oneOpModel("Neg", {});
  setGraph(*misplaced.mutable_graph()->mutable_node(0), "body", unaryGraph("Neg"));
  CHECK(contains(importError(misplaced), "may hold a graph"));

  mindir::GraphProto withParameter = unaryGraph("Neg");
  withParameter.add_parameter()->CopyFrom(withParameter.input(0));
  withParameter.mutable_parameter(0)->set_name("w");
  CHECK(contains(importError(ifModel(unaryGraph("Exp"), withParameter)), "the body of an If node lists parameters"));
}

TEST_CASE("If branches count toward maxGraphDepth and maxNodes", "[importer][control_flow][limits]") {
  // A branch holding an If `depth` deep: each level is a constant predicate and an If.
  std::function<mindir::GraphProto(int)> branch = [&](int depth) {
    if (depth == 0) return unaryGraph("Neg");
    ModelBuilder g;
    g.input("a", {3});
    auto &p = g.node("p", "Constant", {});
    msjit::testing::setTensor<char>(p, "value", mindir::DT_BOOL, {}, {1});
    auto &n = g.node("If_" + std::to_string(depth), "If", {"p", "a"});
    setGraph(n, "then_branch", branch(depth - 1));
    setGraph(n, "else_branch", unaryGraph("Neg"));
    g.output(n.name());
    return g.model().graph();
  };
  auto nested = [&](int depth) { return ifModel(branch(depth - 1), unaryGraph("Neg")); };
  CHECK(importError(nested(8)).empty());
  std::string error = importError(nested(9));
  CHECK(contains(error, "nested 9 deep"));
  CHECK(contains(error, "node 'If_1'"));
  msjit::ir::ShapeLimits limits;
  limits.maxNodes = 6;  // nested(2) has six: If, Neg (else), then p, If, Neg, Neg
  CHECK(importError(nested(2), limits).empty());
  limits.maxNodes = 5;
  CHECK(contains(importError(nested(2), limits), "more than 5 nodes"));
}
