// request_check_test.cpp - the daemon's pre-queue check: hostile requests are
// refused with a message naming the node, valid ones pass, nothing overflows.
#include <catch2/catch.hpp>

#include "server/request_check.h"
#include "tests/cpp/hostile_models.h"

using msjit::ir::ShapeLimits;
using msjit::testing::ModelBuilder;
namespace mindir = msjit::mindir;

namespace {

std::string check(const mindir::ModelProto &model, const ShapeLimits &limits = {}) {
  msjit::rpc::CompileRequest request;
  *request.mutable_model() = model;
  return msjit::server::checkCompileRequest(request, limits);
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

constexpr int64_t k2to31 = int64_t(1) << 31, k2to32 = int64_t(1) << 32, k2to62 = int64_t(1) << 62;

}  // namespace

TEST_CASE("valid requests pass", "[request_check]") {
  CHECK(check(msjit::testing::mulAddModel()).empty());
  CHECK(check(msjit::testing::constantModel({2, 3}, std::string(24, '\0'))).empty());
  CHECK(check(msjit::testing::nestedGradModel(3)).empty());
}

TEST_CASE("a request without a model graph is left to the importer to report", "[request_check]") {
  CHECK(msjit::server::checkCompileRequest(msjit::rpc::CompileRequest(), ShapeLimits()).empty());
}

TEST_CASE("huge constants are refused naming the node", "[request_check]") {
  std::string error = check(msjit::testing::constantModel({k2to32, k2to32}));
  CHECK(contains(error, "node 'Constant_1' (model.py:1): tensor attribute 'value'"));
  CHECK(contains(error, "64 bits"));
  CHECK(contains(check(msjit::testing::constantModel({k2to31, k2to31})), "over the limit"));
  CHECK(contains(check(msjit::testing::constantModel({3})), "has 0 bytes of data, expected 12"));
  CHECK(contains(check(msjit::testing::constantModel({3}, std::string(13, '\0'))), "expected 12"));
}

TEST_CASE("tensor data is sized by its dtype", "[request_check]") {
  struct Case { mindir::DataType dtype; size_t bytes; };
  for (Case c : {Case{mindir::DT_FLOAT32, 4}, {mindir::DT_FLOAT16, 2}, {mindir::DT_FLOAT64, 8},
                 {mindir::DT_INT32, 4}, {mindir::DT_INT64, 8}, {mindir::DT_BOOL, 1}}) {
    auto model = msjit::testing::constantModel({5}, std::string(5 * c.bytes, '\0'));
    auto *t = model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
    t->set_dtype(c.dtype);
    CHECK(check(model).empty());
    t->set_raw_data(std::string(5 * c.bytes + 1, '\0'));
    CHECK(contains(check(model), "expected " + std::to_string(5 * c.bytes)));
  }
  auto model = msjit::testing::constantModel({1}, "");
  model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_dtype(mindir::DT_UNDEFINED);
  CHECK(contains(check(model), "unsupported dtype"));
}

TEST_CASE("graph values are held to rank and element limits", "[request_check]") {
  ModelBuilder huge;
  huge.input("x", {k2to62, 4}).output("x");
  CHECK(contains(check(huge.model()), "graph input 'x' has more elements than fit in 64 bits"));
  ModelBuilder negative;
  negative.input("x", {2, -3}).output("x");
  CHECK(contains(check(negative.model()), "negative dim -3"));
  ModelBuilder deep;
  deep.input("x", std::vector<int64_t>(33, 1)).output("x");
  CHECK(contains(check(deep.model()), "rank 33"));
  auto param = msjit::testing::mulAddModel();
  auto *p = param.mutable_graph()->add_parameter();
  p->set_name("w");
  p->add_dims(k2to31);
  p->add_dims(k2to31);
  CHECK(contains(check(param), "parameter 'w'"));
  ShapeLimits small;
  small.maxElements = 5;
  CHECK(contains(check(msjit::testing::mulAddModel(), small), "spans 6 elements, over the limit of 5"));
}

TEST_CASE("node count and Grad nesting are bounded", "[request_check]") {
  auto chain = msjit::testing::chainModel(100000);
  CHECK(check(chain).empty());
  ShapeLimits limits;
  limits.maxNodes = 50000;
  CHECK(contains(check(chain, limits), "more than 50000 nodes"));
  limits = {};
  limits.maxNodes = 4;  // nestedGradModel(4) has five nodes, one per graph
  CHECK(contains(check(msjit::testing::nestedGradModel(4), limits), "more than 4 nodes"));
  CHECK(check(msjit::testing::nestedGradModel(8)).empty());
  std::string error = check(msjit::testing::nestedGradModel(9));
  CHECK(contains(error, "nested 9 deep"));
  CHECK(contains(error, "node 'y' (model.py:"));
}
