// blob_store.h - the interface every cache tier implements.
#ifndef MSJIT_SERVER_CACHE_BLOB_STORE_H
#define MSJIT_SERVER_CACHE_BLOB_STORE_H

#include <cstdint>
#include <optional>
#include <string>

namespace msjit::server {

// Keys are hex SHA-256 digests (isDigest). Implementations are thread-safe.
class BlobStore {
 public:
  virtual ~BlobStore() = default;
  virtual std::optional<std::string> get(const std::string &key) = 0;
  // False when the blob could not be stored; the store is unchanged then.
  virtual bool put(const std::string &key, const std::string &bytes) = 0;
  virtual bool contains(const std::string &key) = 0;
  virtual void remove(const std::string &key) = 0;
  virtual uint64_t entries() const = 0;
  virtual uint64_t bytes() const = 0;
  virtual uint64_t maxBytes() const = 0;  // 0: unbounded
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_BLOB_STORE_H
