//===- ProtoUtil.h - small facts about MindIR protos ------------*- C++ -*-===//
//
// Header-only and MLIR-free: the daemon's request check and the importer both
// size tensor data and name nodes with these.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_IR_PROTOUTIL_H
#define MSJIT_IR_PROTOUTIL_H

#include <cstdint>
#include <string>

#include "proto/mindir.pb.h"

namespace msjit::ir {

// Bytes per element (bool is one byte on the wire and in memory); 0 for a dtype
// MindIR cannot carry.
inline int64_t dtypeBytes(mindir::DataType dtype) {
  switch (dtype) {
    case mindir::DT_FLOAT16: return 2;
    case mindir::DT_FLOAT32:
    case mindir::DT_INT32: return 4;
    case mindir::DT_FLOAT64:
    case mindir::DT_INT64: return 8;
    case mindir::DT_BOOL: return 1;
    default: return 0;
  }
}

// "node 'Mul_3' (model.py:12)": how every diagnostic names a node.
inline std::string nodeRef(const mindir::NodeProto &node) {
  std::string s = "node '" + node.name() + "'";
  if (!node.location().file().empty())
    s += " (" + node.location().file() + ":" + std::to_string(node.location().line()) + ")";
  return s;
}

}  // namespace msjit::ir

#endif  // MSJIT_IR_PROTOUTIL_H
