// status.h - the one place internal outcomes become gRPC status codes.
#ifndef MSJIT_SERVER_STATUS_H
#define MSJIT_SERVER_STATUS_H

#include <grpcpp/grpcpp.h>

#include "passes/Compiler.h"

namespace msjit::server {

inline grpc::Status invalidArgument(const std::string &message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

// A client's bad graph is INVALID_ARGUMENT; only our own failures are INTERNAL.
inline grpc::Status toGrpcStatus(passes::CompileStatus status, const std::string &message) {
  switch (status) {
    case passes::CompileStatus::kOk: return grpc::Status::OK;
    case passes::CompileStatus::kInvalidInput: return invalidArgument(message);
    case passes::CompileStatus::kInternal: return grpc::Status(grpc::StatusCode::INTERNAL, message);
  }
  return grpc::Status(grpc::StatusCode::UNKNOWN, message);
}

}  // namespace msjit::server

#endif  // MSJIT_SERVER_STATUS_H
