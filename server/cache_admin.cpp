// cache_admin.cpp - ListCache and RemoveCacheEntry (msjitctl cache ls / cache rm).
// Admission and credentials as every other rpc: listing keys tells a caller
// which graphs were compiled here, and removing one costs a recompile.
#include "server/service.h"

#include "server/cache/digest.h"
#include "server/call_util.h"
#include "spdlog/spdlog.h"

namespace msjit::server {

grpc::ServerUnaryReactor *MsjitService::ListCache(grpc::CallbackServerContext *context, const grpc::ByteBuffer *bytes,
                                                  grpc::ByteBuffer *out) {
  metrics_.countRequest(Rpc::kListCache);
  rpc::ListCacheRequest request;
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, request, admission); !s.ok()) return finishNow(context, s);
  // Reads every entry file: off gRPC's threads, which serve cache hits.
  auto *reactor = context->DefaultReactor();
  finishLater(reactor, [this, admission, limit = request.limit(), out] {
    rpc::ListCacheReply reply;
    for (rpc::CacheEntry &entry : cache_.list(limit)) reply.add_entries()->Swap(&entry);
    serialize(reply, out);
    return grpc::Status::OK;
  });
  return reactor;
}

grpc::ServerUnaryReactor *MsjitService::RemoveCacheEntry(grpc::CallbackServerContext *context,
                                                         const grpc::ByteBuffer *bytes, grpc::ByteBuffer *out) {
  metrics_.countRequest(Rpc::kRemoveCacheEntry);
  rpc::RemoveCacheEntryRequest request;
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, request, admission); !s.ok()) return finishNow(context, s);
  if (!isDigest(request.key()))
    return finishNow(context, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                           "key must be a hex SHA-256 digest (as msjitctl cache ls prints it)"));
  // Refused before anything is removed, so a failed `cache rm --shared` changes nothing.
  if (request.shared() && !cluster_)
    return finishNow(context, grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                           "msjitd runs without a shared tier (--shared-cache); drop --shared"));
  rpc::RemoveCacheEntryReply reply;
  reply.set_removed_local(cache_.remove(request.key()));
  if (request.shared()) reply.set_removed_shared(cluster_->shared().remove(request.key()));
  spdlog::info("RemoveCacheEntry {} from {}: local {}, shared {}", request.key().substr(0, 12), context->peer(),
               reply.removed_local(), request.shared() ? (reply.removed_shared() ? "removed" : "absent") : "kept");
  serialize(reply, out);
  return finishNow(context, grpc::Status::OK);
}

}  // namespace msjit::server
