// memory_store.h - LRU blobs in memory, bounded by total bytes.
#ifndef MSJIT_SERVER_CACHE_MEMORY_STORE_H
#define MSJIT_SERVER_CACHE_MEMORY_STORE_H

#include <list>
#include <mutex>
#include <unordered_map>

#include "server/cache/blob_store.h"

namespace msjit::server {

class MemoryStore : public BlobStore {
 public:
  explicit MemoryStore(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  std::optional<std::string> get(const std::string &key) override;
  // A blob larger than the whole budget is not kept.
  bool put(const std::string &key, const std::string &bytes) override;
  bool contains(const std::string &key) override;
  void remove(const std::string &key) override;
  uint64_t entries() const override;
  uint64_t bytes() const override;
  uint64_t maxBytes() const override { return max_bytes_; }

 private:
  using Entry = std::pair<std::string, std::string>;  // key, bytes; front = most recent
  void eraseLocked(std::list<Entry>::iterator it);

  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  uint64_t bytes_ = 0;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_MEMORY_STORE_H
