// importer_test.cpp - MindIR -> mindir: good graphs verify, bad ones name the node.
#include <catch2/catch.hpp>

#include "ir/Importer.h"
#include "mlir/IR/MLIRContext.h"
#include "tests/cpp/model_builder.h"

using msjit::testing::ModelBuilder;
namespace mindir = msjit::mindir;

namespace {

std::string importError(const mindir::ModelProto &model) {
  mlir::MLIRContext ctx;
  std::string error;
  auto module = msjit::ir::importModel(ctx, model, error);
  return module ? "" : error;
}

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
