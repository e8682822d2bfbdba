// hostile_models.h - models a careless or hostile client might send, shared by
// the importer and request-check tests.
#ifndef MSJIT_TESTS_CPP_HOSTILE_MODELS_H
#define MSJIT_TESTS_CPP_HOSTILE_MODELS_H

#include <string>
#include <vector>

#include "tests/cpp/model_builder.h"

namespace msjit::testing {

// Constant_1 of f32 `dims` carrying `data` bytes (empty by default: a client claiming a huge tensor).
inline mindir::ModelProto constantModel(std::vector<int64_t> dims, std::string data = "") {
  ModelBuilder b;
  auto &n = b.node("Constant_1", "Constant", {});
  auto *a = n.add_attribute();
  a->set_name("value");
  a->mutable_t()->set_dtype(mindir::DT_FLOAT32);
  for (int64_t d : dims) a->mutable_t()->add_dims(d);
  a->mutable_t()->set_raw_data(data);
  b.output("Constant_1");
  return b.model();
}

// x -> Neg_1 -> Neg_2 -> ... -> Neg_n, nodes listed last first (so the order must be found).
inline mindir::ModelProto chainModel(int n) {
  ModelBuilder b;
  b.input("x", {2});
  for (int i = n; i >= 1; --i) b.node("Neg_" + std::to_string(i), "Neg", {i == 1 ? "x" : "Neg_" + std::to_string(i - 1)});
  b.output("Neg_" + std::to_string(n));
  return b.model();
}

// Appends to `graph` (whose input "x" is f32 (2,)) a node whose output is `out`:
// Neg at depth 0, else a Grad of x whose body holds the same at depth - 1.
inline void addNested(mindir::GraphProto &graph, int depth, const std::string &out) {
  auto *n = graph.add_node();
  n->set_name(out);
  n->add_input("x");
  n->add_output(out);
  n->mutable_location()->set_file("model.py");
  n->mutable_location()->set_line(depth + 1);
  if (depth == 0) {
    n->set_op_type("Neg");
    return;
  }
  n->set_op_type("Grad");
  n->add_output(out + "_dx");
  auto *body = n->add_attribute();
  body->set_name("body");
  auto *g = body->mutable_g();
  auto *x = g->add_input();
  x->set_name("x");
  x->set_dtype(mindir::DT_FLOAT32);
  x->add_dims(2);
  addNested(*g, depth - 1, "y");
  g->add_output()->set_name("y");
  setInts(*n, "wrt", {0});
  auto *k = n->add_attribute();
  k->set_name("num_diff");
  k->set_i(1);
  setBool(*n, "sens_param", false);
}

// Grad bodies nested `depth` deep (0: no Grad at all).
inline mindir::ModelProto nestedGradModel(int depth) {
  ModelBuilder b;
  b.input("x", {2});
  addNested(*b.model().mutable_graph(), depth, "out");
  b.output("out");
  return b.model();
}

}  // namespace msjit::testing

#endif  // MSJIT_TESTS_CPP_HOSTILE_MODELS_H
