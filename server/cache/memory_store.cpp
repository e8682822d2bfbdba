#include "server/cache/memory_store.h"

namespace msjit::server {

std::optional<std::string> MemoryStore::get(const std::string &key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

bool MemoryStore::put(const std::string &key, const std::string &bytes) {
  if (bytes.size() > max_bytes_) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) eraseLocked(it->second);
  lru_.emplace_front(key, bytes);
  index_[key] = lru_.begin();
  bytes_ += bytes.size();
  while (bytes_ > max_bytes_) eraseLocked(std::prev(lru_.end()));
  return true;
}

bool MemoryStore::contains(const std::string &key) {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.count(key) != 0;
}

void MemoryStore::remove(const std::string &key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) eraseLocked(it->second);
}

uint64_t MemoryStore::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.size();
}

uint64_t MemoryStore::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

void MemoryStore::eraseLocked(std::list<Entry>::iterator it) {
  bytes_ -= it->second.size();
  index_.erase(it->first);
  lru_.erase(it);
}

}  // namespace msjit::server
