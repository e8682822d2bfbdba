// artifact_cache.h - cache key -> compiled artifact, in two tiers.
//
//   memory: LRU of entries and artifact bytes (MemoryStore)
//   disk:   ac/<key>           the entry (a CompileReply), and
//           cas/<digest>.so    the artifact, content-addressed
// The artifact is committed before the entry that names it, so an entry on
// disk always points at a complete artifact. The disk tier is bounded: past
// its budget the least recently used entries (an entry's mtime is refreshed on
// every hit) are evicted; an artifact file goes with the last entry naming it
// (two keys can compile to the same bytes).
// Artifacts are verified: a memory hit re-hashes the file whenever its inode,
// size or times changed since it was last verified, so a replaced .so is
// quarantined (quarantine/) and recompiled, never handed out.
#ifndef MSJIT_SERVER_CACHE_ARTIFACT_CACHE_H
#define MSJIT_SERVER_CACHE_ARTIFACT_CACHE_H

#include <array>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "proto/msjit.pb.h"
#include "server/cache/disk_store.h"
#include "server/cache/memory_store.h"

namespace msjit::server {

class ArtifactCache {
 public:
  ArtifactCache(const std::string &dir, uint64_t memory_bytes, uint64_t disk_bytes = 10ull << 30);

  bool ok() const { return disk_entries_.ok() && disk_artifacts_.ok(); }

  // Memory first, then disk (promoting the entry to memory). `reply.hit`
  // says which tier answered.
  std::optional<rpc::CompileReply> lookup(const std::string &key);

  // Stores `artifact` and the entry for `key`; fills the reply's digest, path
  // and size. False if the disk tier could not store it.
  bool insert(const std::string &key, const std::string &artifact, rpc::CompileReply &reply);

  // The artifact bytes of an entry, verified against its digest.
  std::optional<std::string> artifactBytes(const rpc::CompileReply &entry);

  // True if the artifact file still holds the bytes of `digest`; quarantines it otherwise.
  bool verifyArtifact(const std::string &digest);
  uint64_t quarantined() const { return disk_artifacts_.quarantined(); }

  // The entries on disk, most recently used first, at most `limit` (0: all).
  // Every memory entry is on disk too (insert writes the disk tier first).
  std::vector<rpc::CacheEntry> list(size_t limit);
  // Drops `key` from both tiers, and its artifact when no other entry names it.
  // True if the key was cached.
  bool remove(const std::string &key);

  uint64_t memoryEntries() const { return memory_entries_.entries(); }
  uint64_t memoryBytes() const { return memory_entries_.bytes() + memory_artifacts_.bytes(); }
  uint64_t diskEntries() const { return disk_entries_.entries(); }
  uint64_t diskBytes() const { return disk_entries_.bytes() + disk_artifacts_.bytes(); }
  const std::string &dir() const { return dir_; }
  uint64_t evictions() const { return evictions_; }

 private:
  void touch(const std::string &key);
  // inode, size and times of a file, to notice a replacement without re-hashing on every hit
  using Stamp = std::array<int64_t, 5>;
  std::optional<Stamp> stampOf(const std::string &digest) const;
  void remember(const std::string &digest);
  void enforceDiskBudget();
  // Keys of the entries on disk with their last use, oldest first.
  std::vector<std::pair<std::filesystem::file_time_type, std::string>> diskKeysByUse();
  std::optional<rpc::CompileReply> diskEntry(const std::string &key);
  // Drops `key` from both tiers and its artifact with the last entry naming it; evict_mu_ held.
  bool dropLocked(const std::string &key);

  std::string dir_;
  uint64_t disk_budget_;
  std::mutex evict_mu_;
  std::atomic<uint64_t> evictions_{0};
  std::mutex verified_mu_;
  std::map<std::string, Stamp> verified_;  // artifact digest -> stamp when its bytes last matched
  MemoryStore memory_entries_, memory_artifacts_;
  DiskStore disk_entries_, disk_artifacts_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_ARTIFACT_CACHE_H
