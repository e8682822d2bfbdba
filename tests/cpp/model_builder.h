// model_builder.h - terse construction of MindIR models for C++ tests.
#ifndef MSJIT_TESTS_CPP_MODEL_BUILDER_H
#define MSJIT_TESTS_CPP_MODEL_BUILDER_H

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "proto/mindir.pb.h"

namespace msjit::testing {

class ModelBuilder {
 public:
  ModelBuilder() { model_.set_ir_version("msjit-mindir-1"); }

  ModelBuilder &input(const std::string &name, std::vector<int64_t> dims,
                      mindir::DataType dtype = mindir::DT_FLOAT32) {
    auto *v = model_.mutable_graph()->add_input();
    v->set_name(name);
    v->set_dtype(dtype);
    for (int64_t d : dims) v->add_dims(d);
    return *this;
  }

  // Adds node `name` = op(inputs) with output named `name`.
  mindir::NodeProto &node(const std::string &name, const std::string &op,
                          std::initializer_list<std::string> inputs) {
    auto *n = model_.mutable_graph()->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (const auto &i : inputs) n->add_input(i);
    n->add_output(name);
    n->mutable_location()->set_file("model.py");
    n->mutable_location()->set_line(model_.graph().node_size());
    return *n;
  }

  ModelBuilder &output(const std::string &name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }

  mindir::ModelProto &model() { return model_; }

 private:
  mindir::ModelProto model_;
};

inline void setInts(mindir::NodeProto &n, const std::string &name, std::vector<int64_t> values) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->mutable_ints();  // an empty list is still a value
  for (int64_t v : values) a->mutable_ints()->add_values(v);
}

inline void setBool(mindir::NodeProto &n, const std::string &name, bool value) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_b(value);
}

inline void setDtype(mindir::NodeProto &n, const std::string &name, mindir::DataType dtype) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_dtype(dtype);
}

inline void setFloatTensor(mindir::NodeProto &n, const std::string &name, std::vector<int64_t> dims,
                           std::vector<float> values) {
  auto *a = n.add_attribute();
  a->set_name(name);
  auto *t = a->mutable_t();
  t->set_dtype(mindir::DT_FLOAT32);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float)));
}

template <typename T>
inline void setTensor(mindir::NodeProto &n, const std::string &name, mindir::DataType dtype, std::vector<int64_t> dims,
                      std::vector<T> values) {
  auto *a = n.add_attribute();
  a->set_name(name);
  auto *t = a->mutable_t();
  t->set_dtype(dtype);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T)));
}

// A graph attribute (Grad body, If branch, While cond/body) built with a ModelBuilder.
inline void setGraph(mindir::NodeProto &n, const std::string &name, const mindir::GraphProto &graph) {
  auto *a = n.add_attribute();
  a->set_name(name);
  *a->mutable_g() = graph;
}

// Replaces the node's outputs (multi-output nodes: If, While, Grad).
inline void setOutputs(mindir::NodeProto &n, std::initializer_list<std::string> names) {
  n.clear_output();
  for (const auto &name : names) n.add_output(name);
}

// The tutorial's f(a, b, c) = a * b + c on (2, 3) float32.
inline mindir::ModelProto mulAddModel(std::vector<int64_t> dims = {2, 3}) {
  ModelBuilder b;
  b.input("a", dims).input("b", dims).input("c", dims);
  b.node("Mul_1", "Mul", {"a", "b"});
  b.node("Add_2", "Add", {"Mul_1", "c"});
  b.output("Add_2");
  return b.model();
}

}  // namespace msjit::testing

#endif  // MSJIT_TESTS_CPP_MODEL_BUILDER_H
