// call_util.h - finishing a raw callback call, shared by the service's files.
#ifndef MSJIT_SERVER_CALL_UTIL_H
#define MSJIT_SERVER_CALL_UTIL_H

#include <grpcpp/grpcpp.h>
#include <google/protobuf/message.h>

namespace msjit::server {

inline void serialize(const google::protobuf::Message &message, grpc::ByteBuffer *out) {
  grpc::Slice slice(message.SerializeAsString());
  *out = grpc::ByteBuffer(&slice, 1);
}

inline grpc::ServerUnaryReactor *finishNow(grpc::CallbackServerContext *context, const grpc::Status &status) {
  auto *reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CALL_UTIL_H
