// call_util.h - finishing a raw callback call, shared by the service's files.
#ifndef MSJIT_SERVER_CALL_UTIL_H
#define MSJIT_SERVER_CALL_UTIL_H

#include <grpcpp/grpcpp.h>
#include <google/protobuf/message.h>

#include <functional>
#include <thread>

namespace msjit::server {

inline void serialize(const google::protobuf::Message &message, grpc::ByteBuffer *out) {
  grpc::Slice slice(message.SerializeAsString());
  *out = grpc::ByteBuffer(&slice, 1);
}

// Runs `work` on a thread of its own (it waits for a worker process, or reads the disk) and
// finishes the call with it.
inline void finishLater(grpc::ServerUnaryReactor *reactor, std::function<grpc::Status()> work) {
  std::thread([reactor, work = std::move(work)] { reactor->Finish(work()); }).detach();
}

inline grpc::ServerUnaryReactor *finishNow(grpc::CallbackServerContext *context, const grpc::Status &status) {
  auto *reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CALL_UTIL_H
