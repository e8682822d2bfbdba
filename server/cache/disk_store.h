// disk_store.h - blobs as files under a directory, sharded by key prefix.
//
// Writes go to a temp file in the same directory, are fsynced and then
// renamed into place, so a reader (or a crash) never sees a partial blob.
// With `content_addressed`, the key must be the SHA-256 of the bytes: put
// refuses a mismatch and get moves a file whose bytes no longer match into
// `quarantine_dir` (kept for an operator to inspect, never served again).
#ifndef MSJIT_SERVER_CACHE_DISK_STORE_H
#define MSJIT_SERVER_CACHE_DISK_STORE_H

#include <atomic>
#include <string>

#include "server/cache/blob_store.h"

namespace msjit::server {

class DiskStore : public BlobStore {
 public:
  // Creates `root` if needed and counts what is already there.
  DiskStore(std::string root, std::string suffix, bool content_addressed, std::string quarantine_dir = "");

  std::optional<std::string> get(const std::string &key) override;
  bool put(const std::string &key, const std::string &bytes) override;
  bool contains(const std::string &key) override;
  void remove(const std::string &key) override;
  uint64_t entries() const override { return entries_; }
  uint64_t bytes() const override { return bytes_; }
  uint64_t maxBytes() const override { return 0; }

  // Where `key` lives (whether or not it exists); "" for an invalid key.
  std::string pathFor(const std::string &key) const;
  // Moves the blob of `key` aside (into the quarantine directory, else deletes it).
  void quarantine(const std::string &key);
  uint64_t quarantined() const { return quarantined_; }
  bool ok() const { return ok_; }

 private:
  void forget(uint64_t size);

  std::string root_, suffix_;
  bool content_addressed_;
  std::string quarantine_dir_;
  std::atomic<uint64_t> quarantined_{0};
  bool ok_ = false;
  std::atomic<uint64_t> entries_{0}, bytes_{0};
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_DISK_STORE_H
