// cache_key.h - the cache key of a compile request.
//
// SHA-256 over an explicit, named list of everything that changes the
// artifact — never pointers, paths or times. Source locations and producer
// names are stripped from the graph first: they change messages, not code.
#ifndef MSJIT_SERVER_CACHE_CACHE_KEY_H
#define MSJIT_SERVER_CACHE_CACHE_KEY_H

#include <string>
#include <utility>
#include <vector>

#include "proto/msjit.pb.h"

namespace msjit::server {

// Bump to invalidate every cache entry written by earlier builds.
constexpr int kCacheVersion = 1;

// What the compiler workers compile for, as their first message reports it:
// the daemon links no compiler, so it learns these from a worker.
struct CompilerIdentity {
  std::string version, triple, cpu, features;
};

std::vector<std::pair<std::string, std::string>> cacheKeyComponents(const rpc::CompileRequest &request,
                                                                    const CompilerIdentity &compiler);

std::string cacheKey(const rpc::CompileRequest &request, const CompilerIdentity &compiler);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_CACHE_KEY_H
