//===- request_check.h - cheap validation of a CompileRequest ---*- C++ -*-===//
//
// Run by the daemon before a compile is queued, on the serving process's side:
// it links no MLIR, so it checks only what bounds the work and memory a
// request can cause (node count, Grad nesting, every declared shape and tensor
// size). Op semantics stay with the importer, in the compile worker.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_SERVER_REQUEST_CHECK_H
#define MSJIT_SERVER_REQUEST_CHECK_H

#include <string>

#include "ir/ShapeLimits.h"
#include "proto/msjit.pb.h"

namespace msjit::server {

// "" when `request` is within `limits`, else a message naming the offending
// node or value, e.g. "node 'Constant_1' (model.py:3): tensor attribute 'value' ...".
std::string checkCompileRequest(const msjit::rpc::CompileRequest &request, const ir::ShapeLimits &limits);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_REQUEST_CHECK_H
