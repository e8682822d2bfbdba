//===- request_check.cpp - cheap validation of a CompileRequest -----------===//
#include "server/request_check.h"

#include "ir/ProtoUtil.h"

namespace msjit::server {
namespace {

using ir::ShapeLimits;

class RequestChecker {
 public:
  explicit RequestChecker(const ShapeLimits &limits) : limits_(limits) {}

  // Checks `graph`, nested `depth` Grad bodies deep, and the bodies inside it.
  std::string graph(const mindir::GraphProto &graph, int depth) {
    nodes_ += graph.node_size();
    if (std::string e = ir::nodeCountError(nodes_, limits_); !e.empty()) return e;
    for (const auto &[what, values] : {std::pair{"graph input", &graph.input()}, {"graph output", &graph.output()},
                                       {"parameter", &graph.parameter()}})
      for (const auto &v : *values)
        if (std::string e = ir::dimsError(v.dims(), limits_); !e.empty())
          return std::string(what) + " '" + v.name() + "' " + e;
    for (const auto &node : graph.node())
      for (const auto &a : node.attribute()) {
        if (a.value_case() == mindir::AttributeProto::kT)
          if (std::string e = tensor(a.t()); !e.empty())
            return ir::nodeRef(node) + ": tensor attribute '" + a.name() + "' " + e;
        if (a.value_case() == mindir::AttributeProto::kG) {
          if (std::string e = ir::graphDepthError(depth + 1, limits_); !e.empty()) return ir::nodeRef(node) + ": " + e;
          // A body's message names its own node or value.
          if (std::string e = this->graph(a.g(), depth + 1); !e.empty()) return e;
        }
      }
    return "";
  }

 private:
  std::string tensor(const mindir::TensorProto &t) {
    int64_t elementBytes = ir::dtypeBytes(t.dtype()), bytes = 0;
    if (elementBytes == 0) return "has an unsupported dtype";
    if (std::string e = ir::dimsError(t.dims(), limits_); !e.empty()) return e;
    if (!ir::checkedBytes(t.dims(), elementBytes, bytes)) return "has more bytes than fit in 64 bits";
    if (static_cast<int64_t>(t.raw_data().size()) != bytes)
      return "has " + std::to_string(t.raw_data().size()) + " bytes of data, expected " + std::to_string(bytes);
    return "";
  }

  const ShapeLimits &limits_;
  int64_t nodes_ = 0;
};

}  // namespace

std::string checkCompileRequest(const msjit::rpc::CompileRequest &request, const ShapeLimits &limits) {
  // A missing graph or a wrong ir_version is the importer's to report, in its words.
  if (!request.has_model() || !request.model().has_graph()) return "";
  return RequestChecker(limits).graph(request.model().graph(), 0);
}

}  // namespace msjit::server
